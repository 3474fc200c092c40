// Package findings holds the small helpers the protocol packages share to
// report their finding codes in a deterministic order without duplicates.
//
// Each protocol package has its own Code type (a string type of stable
// snake_case codes); these helpers are generic over it, so a package keeps
// its own types and only the bookkeeping is shared.
//
// What this package does not do: it knows no codes, no protocol and no
// severity. Which order a package reports its codes in (alphabetical with
// Normalize, or a canonical list with Set.InOrder) stays that package's
// choice.
package findings
