package mailauth

import "context"

// sourceKey is the context key of WithSource.
type sourceKey struct{}

// WithSource tags ctx with source, an opaque name of whoever asked for a
// scan: the HTTP service passes the key its fairness counts a client by
// (an IPv4 address, or an IPv6 /64). A Scanner does nothing with it but
// hand it to Config.OnLeak, so that a program can limit its alarms per
// source: one hostile source then cannot hold back another's alarm.
func WithSource(ctx context.Context, source string) context.Context {
	return context.WithValue(ctx, sourceKey{}, source)
}

// Source returns the tag WithSource put on ctx, "" when none.
func Source(ctx context.Context) string {
	s, _ := ctx.Value(sourceKey{}).(string)
	return s
}
