// Package seqscan marks a scan's context so that the scanner runs its
// checks one after another instead of all at once. It exists for the
// bench (go run ./internal/cmd/bench), which measures the sequential baseline the
// concurrent scanner is compared with; it is internal so that it can
// never become a product option.
package seqscan

import "context"

type key struct{}

// With returns ctx marked: a scan run with it runs its checks one after
// another, in CheckOrder.
func With(ctx context.Context) context.Context { return context.WithValue(ctx, key{}, true) }

// On reports whether ctx is marked.
func On(ctx context.Context) bool {
	v, _ := ctx.Value(key{}).(bool)
	return v
}
