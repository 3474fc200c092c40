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

// Observer returns the scanner's observer of the checks it starts: for
// a marked ctx, a function that the scanner calls right after starting
// each check, with a channel closed when that check ends, and that waits
// for it, so the checks run one after another. It returns nil for any
// other ctx: the scanner then starts every check at once and calls
// nothing.
func Observer(ctx context.Context) func(done <-chan struct{}) {
	if v, _ := ctx.Value(key{}).(bool); !v {
		return nil
	}
	return func(done <-chan struct{}) { <-done }
}
