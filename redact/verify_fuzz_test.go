package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

// referenceHits counts the strings of a valid JSON document that
// Contains flags, read with the standard decoder's tokens: the behaviour
// Verify's direct reading must match.
func referenceHits(s *Set, body []byte) (int, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	n := 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return 0, err
		}
		if str, ok := tok.(string); ok && s.Contains(str) {
			n++
		}
	}
}

// FuzzVerify: on any input, Verify agrees with the decoder-based
// reference about whether a valid document leaks, and rejects invalid
// ones without reporting a leak.
func FuzzVerify(f *testing.F) {
	for _, seed := range []string{
		`{"a":"mail.canary.example"}`, `["x","\"mail.CANARY.example\""]`, `{"k\u00e9y":"服务器 canary.example"}`,
		`{"a":1,"b":[true,null,{"c":"203.0.113.9"}]}`, `"plain"`, `{"a":"\\"}`, `{`, `"unterminated`,
		`{"a":"x","a":"canary.example"}`, `["\ud800"]`,
	} {
		f.Add([]byte(seed))
	}
	s := NewSet()
	s.Add("mail.canary.example", "canary.example", "203.0.113.9")
	s.Allow("example.com")
	f.Fuzz(func(t *testing.T, body []byte) {
		err := s.Verify(body)
		if !json.Valid(body) {
			require.Error(t, err, "invalid JSON %q: want a decode error", body)
			require.NotErrorIs(t, err, ErrLeak, "invalid JSON %q: %v, want a decode error", body, err)
			return
		}
		want, rerr := referenceHits(s, body)
		require.NoError(t, rerr, "reference failed on valid JSON %q", body)
		require.Equal(t, want > 0, errors.Is(err, ErrLeak), "%q: Verify leak (err %v), reference hits %d", body, err, want)
	})
}
