package redact_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mailauth/mailauth/redact"
)

// verifyBody is a document shaped like a scan result: eight checks with
// bilingual texts and diagnostics, about 6 KB of JSON.
func verifyBody(tb testing.TB) []byte {
	type text struct{ ZH, EN string }
	type check struct {
		ID, Status, Severity string
		Title, Summary       text
		Details              text
		Diagnostics          map[string]any
	}
	var doc struct {
		Domain string
		Score  int
		Checks []check
	}
	doc.Domain, doc.Score = "example.com", 87
	for i := range 8 {
		doc.Checks = append(doc.Checks, check{
			ID: fmt.Sprint("check", i), Status: "pass", Severity: "info",
			Title:   text{"邮件交换记录（MX）", "Mail exchangers (MX)"},
			Summary: text{"该域名发布了有效的记录，发件方可以据此验证。", "The domain publishes a valid record that senders can verify against."},
			Details: text{"共找到 2 台收件服务器，全部解析到公网地址。\n每台服务器都有正向与反向解析。", "2 mail servers were found, all resolving to public addresses.\nEvery server has forward and reverse DNS \"confirmed\"."},
			Diagnostics: map[string]any{"recordCount": 2, "lookupCount": 7, "policy": "reject", "aligned": true,
				"hosts": []any{nil, 3, "unknown"}},
		})
	}
	b, err := json.Marshal(doc)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// BenchmarkVerify measures the guard's final check of a scan-sized
// result against a Set holding a realistic number of recorded values.
func BenchmarkVerify(b *testing.B) {
	s := redact.NewSet()
	for i := range 300 {
		s.Add(fmt.Sprintf("host%d.provider.example.net", i), fmt.Sprintf("192.0.2.%d", i%250))
	}
	body := verifyBody(b)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Verify(body); err != nil {
			b.Fatal(err)
		}
	}
}
