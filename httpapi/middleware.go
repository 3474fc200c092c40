package httpapi

import "net/http"

// Middleware wraps a handler with one step of the request pipeline. A
// step is a function that calls the next one directly, not an
// http.Handler: a diagnostic's goroutine waits for its scan under every
// step's frame, and a call through ServeHTTP would add one more frame
// per step (see handler.diagnose on why the waiting stack is kept small).
type Middleware func(http.HandlerFunc) http.HandlerFunc

// chain applies ms to h so that ms[0] runs first (is outermost).
func chain(h http.HandlerFunc, ms ...Middleware) http.HandlerFunc {
	for i := len(ms) - 1; i >= 0; i-- {
		h = ms[i](h)
	}
	return h
}

// commonHeaders sets the headers every response carries: no caching of
// diagnostics, no content sniffing. No Access-Control-* header is ever set.
func commonHeaders(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "no-store")
		h.Set("X-Content-Type-Options", "nosniff")
		next(w, r)
	}
}

// recoverPanic turns a panic below it into the generic 500 (when nothing
// was written yet). http.ErrAbortHandler keeps its meaning.
func recoverPanic(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			if rec, ok := w.(*statusRecorder); !ok || rec.status == 0 {
				writeError(w, r, errInternal)
			}
			noteError(r, "panic")
		}()
		next(w, r)
	}
}
