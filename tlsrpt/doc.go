// Package tlsrpt checks a domain's SMTP TLS Reporting record (RFC 8460).
//
// TLS-RPT lets a domain ask sending mail servers for daily reports about
// the TLS connections they made, or failed to make, to its MX hosts, for
// example when an MTA-STS policy could not be applied. The domain
// publishes a TXT record at _smtp._tls.<domain> naming where reports go:
// mailto: addresses and https: URLs in its rua field. This package finds
// that record, parses it and reports facts about it: how many records
// there are, whether the one is valid, and how many usable destinations of
// each kind it names.
//
// [Parse] is a pure parser; [Classify] tells a usable destination from an
// unusable one; [Check] does one TXT lookup through the given
// [resolver.Resolver] and returns a [Result] of counts and finding codes.
//
// What this package does not do: it does not send or receive reports, does
// not verify that a mailto: destination accepts mail or that an https:
// destination answers, does not check the DKIM key (s=tlsrpt) a reporting
// mailbox needs (RFC 8460 §3), and does not judge: status, severity and
// wording belong to the caller. A Result never holds a destination URI.
//
// Limits: one TXT query per check; extension names of at most
// [MaxExtensionNameLength] characters (RFC 8460 §3).
//
// # Shape
//
// Parse, Select, Check, Result and Codes, as in every protocol package of
// this module.
// [Parse] reads one record (pure; its errors wrap [ErrSyntax]), and
// [Select] picks the TLS-RPT records among a name's TXT strings.
// [Check] does the I/O through a [resolver.Resolver] and returns a
// [Result] of facts; a fact that could not be determined is nil or its
// enumeration's unknown value (see the resolver package doc), never
// absent. [Codes] lists the
// finding codes a Result may carry, in the order they are reported; the
// judgement (status, severity, wording) is the caller's.
package tlsrpt
