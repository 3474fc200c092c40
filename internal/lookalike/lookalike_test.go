package lookalike

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		name      string
		look      bool
		mixed     bool
		whole     bool
		latin, en string
		scripts   []string
	}{
		{name: "example.com"},
		{name: "中国.example"},
		{name: "日本語テキスト.jp"},
		{name: "münchen.de"},
		{name: "пример.рф"}, // Cyrillic, but not every letter looks Latin
		{name: "аcme-gw.com", look: true, mixed: true, latin: "acme-gw.com", scripts: []string{Cyrillic, Latin},
			en: "This name mixes Cyrillic and Latin letters; it is not acme-gw.com."},
		{name: "аррӏе.com", look: true, whole: true, latin: "apple.com", scripts: []string{Cyrillic, Latin},
			en: "This name is written in Cyrillic letters that look like Latin ones; it is not apple.com."},
		{name: "gοοgle.com", look: true, mixed: true, latin: "google.com", scripts: []string{Greek, Latin}},
		{name: "pаyбal.com", look: true, mixed: true, scripts: []string{Cyrillic, Latin},
			en: "This name mixes Cyrillic and Latin letters: it may imitate another name."},
	} {
		f, ok := Check(c.name)
		assert.Equal(t, c.look, ok, c.name)
		if !ok {
			continue
		}
		assert.Equal(t, c.mixed, f.Mixed, "%s: mixed", c.name)
		assert.Equal(t, c.whole, f.WholeScript, "%s: whole script", c.name)
		assert.Equal(t, c.latin, f.Latin, c.name)
		assert.Equal(t, c.scripts, f.Scripts, c.name)
		en, zh := f.Message()
		if c.en != "" {
			assert.Equal(t, c.en, en, c.name)
		}
		assert.NotEmpty(t, zh)
	}
}

func FuzzCheck(f *testing.F) {
	for _, s := range []string{"аcme-gw.com", "example.com", "中国.example", "gοοgle.com", "", ".", "a..b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fi, ok := Check(s)
		if !ok {
			return
		}
		if !fi.Mixed && !fi.WholeScript {
			t.Fatalf("%q: a finding without a cause", s)
		}
		en, zh := fi.Message()
		if en == "" || zh == "" {
			t.Fatalf("%q: empty message", s)
		}
	})
}
