// Package lookalike tells whether a domain name could pass for another:
// a label that mixes scripts, or one written wholly in another script
// with letters that look like Latin ones (the mixed-script and
// whole-script-confusable ideas of Unicode Technical Standard #39,
// "Unicode Security Mechanisms").
//
// It is a small, self-written check on the standard library's script
// tables (package unicode), not the full UTS #39 data: golang.org/x/text
// has no confusables table or restriction-level check, and a complete
// implementation would bring a large table for a warning. What it
// covers: the restriction levels' allowed combinations (Latin with Han
// and kana, Bopomofo or Hangul), and the Cyrillic, Greek and Armenian
// letters most often used to imitate Latin ones (a subset of UTS #39's
// confusables.txt). A name the table does not cover still gets the
// mixed-script warning, without the Latin name it imitates.
package lookalike

import (
	"cmp"
	"sort"
	"strings"
	"unicode"
)

// Script names, as the Unicode Character Database spells them.
const (
	Latin    = "Latin"
	Cyrillic = "Cyrillic"
	Greek    = "Greek"
	Armenian = "Armenian"
	Han      = "Han"
	Hiragana = "Hiragana"
	Katakana = "Katakana"
	Hangul   = "Hangul"
	Bopomofo = "Bopomofo"
	Other    = "Other"
)

// scripts are the scripts a letter is sorted into; a letter of any
// other script is Other.
var scripts = []struct {
	name  string
	table *unicode.RangeTable
}{
	{Latin, unicode.Latin}, {Cyrillic, unicode.Cyrillic}, {Greek, unicode.Greek}, {Armenian, unicode.Armenian},
	{Han, unicode.Han}, {Hiragana, unicode.Hiragana}, {Katakana, unicode.Katakana}, {Hangul, unicode.Hangul},
	{Bopomofo, unicode.Bopomofo},
	{"Arabic", unicode.Arabic}, {"Hebrew", unicode.Hebrew}, {"Thai", unicode.Thai}, {"Georgian", unicode.Georgian},
	{"Cherokee", unicode.Cherokee}, {"Devanagari", unicode.Devanagari},
}

// allowed are the combinations of scripts one label may have without
// being mixed (UTS #39 "Highly Restrictive": Latin with Han and
// Hiragana and Katakana; with Han and Bopomofo; with Han and Hangul).
var allowed = [][]string{
	{Latin, Han, Hiragana, Katakana},
	{Latin, Han, Bopomofo},
	{Latin, Han, Hangul},
}

// Confusables maps letters of Cyrillic, Greek and Armenian to the Latin
// letter they look like (lower case; a subset of UTS #39 confusables.txt).
var Confusables = map[rune]rune{
	// Cyrillic
	'а': 'a', 'в': 'b', 'с': 'c', 'ԁ': 'd', 'е': 'e', 'һ': 'h', 'і': 'i', 'ј': 'j', 'к': 'k', 'ӏ': 'l',
	'м': 'm', 'н': 'h', 'о': 'o', 'р': 'p', 'ԛ': 'q', 'г': 'r', 'ѕ': 's', 'т': 't', 'ԝ': 'w', 'х': 'x',
	'у': 'y', 'ь': 'b', 'ү': 'y', 'ѵ': 'v', 'ѡ': 'w', 'ꙇ': 'i',
	// Greek
	'α': 'a', 'β': 'b', 'ε': 'e', 'η': 'n', 'ι': 'i', 'κ': 'k', 'ο': 'o', 'ρ': 'p', 'τ': 't', 'χ': 'x',
	'γ': 'y', 'ϲ': 'c', 'ϳ': 'j', 'ω': 'w', 'υ': 'u', 'ν': 'v',
	// Armenian
	'օ': 'o', 'ս': 'u', 'ց': 'g', 'հ': 'h', 'ո': 'n', 'ք': 'p', 'զ': 'q', 'ա': 'w', 'ե': 'l',
}

// Finding says how a name could pass for another.
type Finding struct {
	// Scripts are the scripts of the name's letters, Latin last.
	Scripts []string
	// Mixed reports a label that mixes scripts beyond the allowed
	// combinations.
	Mixed bool
	// WholeScript reports a label written wholly in another script with
	// letters that each look like a Latin one.
	WholeScript bool
	// Latin is the all-ASCII name the name imitates, "" when some
	// letter has no Latin look-alike in Confusables.
	Latin string
}

// Check looks at name (a domain in U-label form, as for display) and
// reports whether it could pass for another name.
func Check(name string) (Finding, bool) {
	var f Finding
	all := map[string]bool{}
	for _, label := range strings.Split(name, ".") {
		set := labelScripts(label)
		for s := range set {
			all[s] = true
		}
		switch {
		case len(set) > 1 && !allowedSet(set):
			f.Mixed = true
		case len(set) == 1 && !set[Latin] && confusableLabel(label):
			f.WholeScript = true
		}
	}
	if !f.Mixed && !f.WholeScript {
		return Finding{}, false
	}
	for s := range all {
		f.Scripts = append(f.Scripts, s)
	}
	sort.Slice(f.Scripts, func(i, j int) bool {
		if (f.Scripts[i] == Latin) != (f.Scripts[j] == Latin) {
			return f.Scripts[j] == Latin
		}
		return f.Scripts[i] < f.Scripts[j]
	})
	f.Latin = latinForm(name)
	return f, true
}

// scriptOf is the script of a letter, "" for anything else (digits,
// the hyphen, combining marks: the Common and Inherited scripts).
func scriptOf(r rune) string {
	if !unicode.IsLetter(r) {
		return ""
	}
	for _, s := range scripts {
		if unicode.Is(s.table, r) {
			return s.name
		}
	}
	return Other
}

func labelScripts(label string) map[string]bool {
	set := map[string]bool{}
	for _, r := range label {
		if s := scriptOf(r); s != "" {
			set[s] = true
		}
	}
	return set
}

func allowedSet(set map[string]bool) bool {
	for _, combo := range allowed {
		n := 0
		for _, s := range combo {
			if set[s] {
				n++
			}
		}
		if n == len(set) {
			return true
		}
	}
	return false
}

// confusableLabel reports a label whose every letter looks like a Latin
// one.
func confusableLabel(label string) bool {
	letters := 0
	for _, r := range label {
		if !unicode.IsLetter(r) {
			continue
		}
		letters++
		if _, ok := Confusables[unicode.ToLower(r)]; !ok {
			return false
		}
	}
	return letters > 0
}

// latinForm replaces each look-alike letter of name with its Latin
// letter; "" when a letter outside ASCII remains.
func latinForm(name string) string {
	var b strings.Builder
	for _, r := range name {
		if l, ok := Confusables[unicode.ToLower(r)]; ok {
			r = l
		}
		if r > unicode.MaxASCII {
			return ""
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// scriptNamesZH are the Chinese names of the scripts.
var scriptNamesZH = map[string]string{
	Latin: "拉丁字母", Cyrillic: "西里尔字母", Greek: "希腊字母", Armenian: "亚美尼亚字母", Han: "汉字",
	Hiragana: "平假名", Katakana: "片假名", Hangul: "韩文字母", Bopomofo: "注音符号", Other: "其他文字",
	"Arabic": "阿拉伯字母", "Hebrew": "希伯来字母", "Thai": "泰文", "Georgian": "格鲁吉亚字母",
	"Cherokee": "切罗基字母", "Devanagari": "天城文",
}

// Message is the warning about a name with finding f, in English and in
// Chinese, naming the scripts and, when known, the Latin name it is not.
func (f Finding) Message() (en, zh string) {
	var enNames, zhNames []string
	for _, s := range f.Scripts {
		if s == Latin && !f.Mixed { // "written in Cyrillic letters that look like Latin ones"
			continue
		}
		enNames = append(enNames, s)
		zhNames = append(zhNames, cmp.Or(scriptNamesZH[s], s))
	}
	if f.Mixed {
		en = "This name mixes " + joinEN(enNames) + " letters"
		zh = "该名称混用了" + strings.Join(zhNames, "和")
	} else {
		en = "This name is written in " + joinEN(enNames) + " letters that look like Latin ones"
		zh = "该名称全部由形似拉丁字母的" + strings.Join(zhNames, "和") + "写成"
	}
	if f.Latin != "" {
		return en + "; it is not " + f.Latin + ".", zh + "，它不是 " + f.Latin + "。"
	}
	return en + ": it may imitate another name.", zh + "，可能在冒充另一个名称。"
}

func joinEN(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
