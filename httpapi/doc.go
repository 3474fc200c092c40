// Package httpapi serves the mailauth diagnostics over HTTP: POST
// /api/scan, POST /api/ptr-check, GET /api/health and GET /openapi.json,
// exactly as the API contract (OpenAPI 3.1.2, API version 1.2.0) states.
//
// [New] turns any [Service] — normally a *mailauth.Scanner — into an
// http.Handler. Every request to a diagnostic endpoint passes these steps in
// this order (doc/design.md §3), and the first one that fails answers:
//
//  1. method: anything but POST is 405 with an Allow header;
//  2. rate limit: one counter per source (an IPv4 address, or the /64 of
//     an IPv6 address, since one subscriber usually holds a whole /64)
//     shared by both diagnostic endpoints, a fixed window opened by the
//     first request; over the
//     limit is 429 with Retry-After (whole seconds, at least 1); a limiter
//     store that cannot be reached is 500;
//  3. media type: Content-Type must be application/json (parameters
//     allowed, case-insensitive; a charset other than utf-8 is refused),
//     else 415;
//  4. size: a body over [MaxBodyBytes] is 413, decided from Content-Length
//     when present and enforced by a hard reader limit otherwise;
//  5. JSON: the body must be one UTF-8 JSON object whose members are known
//     field names with string values, without duplicates or trailing data,
//     else 400;
//  6. validation: every field against the contract's bounds and the root
//     package's normalisers, and the utm_source query parameter against
//     its pattern, else 400;
//  7. concurrency: at most Options.MaxInFlight diagnostics run at once; a
//     request that cannot start within Options.QueueWait is 500.
//
// Every API response carries Cache-Control: no-store (the pages and assets
// carry an ETag and no-cache, or max-age for /static/), every response
// X-Content-Type-Options: nosniff, and none an Access-Control-* header:
// cross-origin browser use is not supported, so OPTIONS is 405 like any
// other wrong method. Every error
// body is {"error": "..."} with a fixed English message that names the field
// and the rule and never echoes any part of the request.
//
// Errors that net/http itself answers before any handler runs (400 for a
// malformed request, 431 for oversized headers, 501 for an unknown
// transfer coding, 505 for an unsupported HTTP version) are JSON too when
// the server accepts through [LimitListener], which rewrites them. What
// stays outside the JSON shape: a connection over a [Listener] cap, or
// one that exceeds the server's header or idle timeouts, is closed
// without a response (no request was read to answer); a request whose
// Expect header is not 100-continue gets net/http's bodiless 417.
//
// The access log (log/slog) records method, route, status, duration and a
// random request id, never a domain, address, selector, query string or
// error text from below.
//
// # Pages
//
// GET / is the web page, a same-origin client of the two diagnostic
// endpoints; /developers/api/ and /developers/cli/ document the API and
// the command line. They are embedded (web/), need no build step, load
// nothing from another origin, and carry a strict Content-Security-Policy
// (default-src 'self', no inline script or style, no framing). The
// developer pages are rendered once from the OpenAPI document and the root
// package's score, grade and judgement tables, so they say what the code
// does. Pages are not API operations: the OpenAPI document lists only the
// operations.
//
// # What this package does not do
//
// It does not scan: the Service does. It keeps no analytics itself:
// Options.Recorder receives an [Event] per answered diagnostic (package
// analytics hashes and stores it). It does not trust X-Forwarded-For unless the TCP peer is in
// Options.TrustedProxies. It does not count in Redis itself: package
// [github.com/mailauth/mailauth/httpapi/redislimit] provides a
// [SharedLimiter] that does, so a program that mounts the handler with
// the in-memory limiter links no Redis client.
//
// # Limits
//
// [MaxBodyBytes] (8 KiB) per request body; [DefaultRateLimit] (30) requests
// per [DefaultRateWindow] (60 s) per source (IPv4 address or IPv6 /64);
// [DefaultMaxInFlight] concurrent diagnostics, waiting at most
// [DefaultQueueWait] for a slot, of which one source runs at most
// [DefaultSourceInFlight] (an IPv6 /56 twice, a /48 four times as many),
// waiting requests served fresh sources first (least recent slow slot
// time first), then round-robin between sources, half of the slots kept
// for fresh sources (nothing in flight and under a second of recent slow
// slot time; among equals the least recently served first), and, while
// slots run short, the deadline of a diagnostic with no progress (DNS
// reply, policy fetch step) for 3 s cut (one that had replies only for
// a fresh waiting request); [DefaultSourceBudget] of
// diagnostic time per source and window (twice per IPv6 /56, four times
// per /48), charged at admission, 429 with Retry-After when used up;
// aggregate rate limits per IPv6
// /56 and /48 ([NetworkLimit], 4 and 16 times the per-source limit, answered
// 429 with Retry-After); [DefaultMaxKeys] sources tracked at once
// by the in-memory limiter (the oldest window is evicted past it).
package httpapi
