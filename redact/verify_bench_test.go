package redact_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/redact"
)

// verifyBody is a document shaped like a scan result: one check per id with
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
	require.NoError(tb, err)
	return b
}

// BenchmarkVerify measures the guard's final check of a scan-sized
// result against a Set holding a realistic number of recorded values.
func BenchmarkVerify(b *testing.B) {
	benchmarkVerify(b)
}

// BenchmarkVerifyGenerated is BenchmarkVerify with the values a scan
// marks as its own (the timestamp and the numbers printed into its
// texts), which every string of the result is cut at.
func BenchmarkVerifyGenerated(b *testing.B) {
	benchmarkVerify(b, "2026-11-24T05:00:00.123456789Z", "1", "2", "7", "10", "86400", "604800")
}

// benchmarkVerify checks verifyBody against a Set of 300 recorded host
// names and addresses and the given generated values.
func benchmarkVerify(b *testing.B, generated ...string) {
	s := redact.NewSet()
	for i := range 300 {
		s.Add(fmt.Sprintf("host%d.provider.example.net", i), fmt.Sprintf("192.0.2.%d", i%250))
	}
	s.Generated(generated...)
	body := verifyBody(b)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		err := s.Verify(body)
		require.NoError(b, err)
	}
}

// BenchmarkAddText records the TXT records of a scan-sized zone (SPF
// trees, DMARC, TLS-RPT, MTA-STS, a DKIM key) into a fresh Set that
// uses a catalogue-sized vocabulary, as each scan does.
func BenchmarkAddText(b *testing.B) {
	var words []string
	for i := range 400 {
		words = append(words, fmt.Sprintf("The record of check %d is valid: v=spf1, -all, reject, quarantine, mode: enforce, max_age %d.", i, i*7),
			fmt.Sprintf("第 %d 项检查：记录有效，策略为 reject。", i))
	}
	vocab := redact.NewVocabulary(words...)
	var texts []string
	for i := range 12 {
		texts = append(texts, fmt.Sprintf("v=spf1 ip4:192.0.2.%d/24 ip4:198.51.100.0/24 ip6:2001:db8:%x::/48 include:_spf%d.provider.example.net include:_netblocks.mail.example.org a mx ~all", i, i, i))
	}
	texts = append(texts,
		"v=DMARC1; p=reject; sp=quarantine; rua=mailto:dmarc-reports@receiver.example.net,mailto:agg@example.com; ruf=mailto:forensic@example.com; fo=1; adkim=s; aspf=r; pct=100",
		"v=TLSRPTv1; rua=mailto:tlsrpt@receiver.example.net,https://report.example.net/v1/tlsrpt",
		"v=STSv1; id=20261124T050000",
		"version: STSv1\nmode: enforce\nmx: mail.example.com\nmx: *.mx.provider.example.net\nmax_age: 604800\n",
		"v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAwv3g5nMbqnQ0i1Zz8pC0dYb0XbQd1mJ6y4d5p7n3S9lK2QwZ0hJx1cE3uR8aT5fG7yVb2nH4jK6mL9pO0qW3eR5tY7uI9oP1aS3dF5gH7jK9lZ1xC3vB5nM7qW9eR1tY3uI5oP7aS9dF1gH3jK5lZ7xC9vB1nM3qW5eR7tY9uI1oP3aS5dF7gH9jK1lZ3xC5vB7nM9qW1eR3tY5uI7oP9aS1dF3gH5jK7lZ9xC1vB3nM5qW7eR9tY1uI3oP5aS7dF9gH1jK3lZ5xC7vB9nM1qW3eR5tY7uI9oP1aS3dF5gH7jK9lZ1xC3vB5nM7qW9eR1tY3uI5oP7aS9dF1gH3jK5lZ7xC9vB1nM3qQIDAQAB")
	b.ReportAllocs()
	for b.Loop() {
		s := redact.NewSet()
		s.UseVocabulary(vocab)
		for _, t := range texts {
			s.AddText(t)
		}
	}
}
