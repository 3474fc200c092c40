package httpapi

import (
	"io"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/mailauth/mailauth"
)

// Timeouts and sizes of the HTTP server the service runs in. WriteTimeout
// leaves room for a full scan (mailauth.DefaultScanTimeout) plus the wait
// for a slot.
const (
	// ServerReadHeaderTimeout bounds reading a request's header.
	ServerReadHeaderTimeout = 5 * time.Second
	// ServerReadTimeout bounds reading a whole request (8 KiB at most).
	ServerReadTimeout = 10 * time.Second
	// ServerWriteTimeout bounds a diagnostic from its header to the end of
	// the answer; every other request gets ShortWriteTimeout.
	ServerWriteTimeout = mailauth.DefaultScanTimeout + DefaultQueueWait + 10*time.Second
	// ServerIdleTimeout frees a keep-alive connection left idle.
	ServerIdleTimeout = 60 * time.Second
	// ServerMaxHeaderBytes bounds a request's header.
	ServerMaxHeaderBytes = 16 << 10
)

// NewServer returns the http.Server that serves h on ln (from
// LimitListener) with the service's timeouts and sizes; errorLog receives
// net/http's own error messages, which can name a client address ("TLS
// handshake error from ...", "panic serving ..."). A nil errorLog means
// standard error with every message replaced by a fixed line, not
// net/http's default of printing them whole. OPTIONS * reaches h, which
// answers it with the JSON 405.
func NewServer(h http.Handler, ln *Listener, errorLog *log.Logger) *http.Server {
	if errorLog == nil {
		errorLog = log.New(withheldLog{os.Stderr}, "", log.LstdFlags)
	}
	return &http.Server{
		ConnState:                    ln.ConnState,
		ConnContext:                  withConn,
		Handler:                      h,
		ReadHeaderTimeout:            ServerReadHeaderTimeout,
		ReadTimeout:                  ServerReadTimeout,
		WriteTimeout:                 ServerWriteTimeout,
		IdleTimeout:                  ServerIdleTimeout,
		MaxHeaderBytes:               ServerMaxHeaderBytes,
		DisableGeneralOptionsHandler: true,
		ErrorLog:                     errorLog,
	}
}

// withheldLog writes a fixed line in place of each net/http error message.
type withheldLog struct{ w io.Writer }

func (l withheldLog) Write(p []byte) (int, error) {
	if _, err := io.WriteString(l.w, "http server error (details withheld: they may name a client address)\n"); err != nil {
		return 0, err
	}
	return len(p), nil
}
