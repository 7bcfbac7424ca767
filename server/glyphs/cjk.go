package glyphs

import (
	"strings"
	"unicode"
)

// cjkFile is Noto's collection of Chinese, Japanese and Korean fonts.
// They share code points (Unicode unified the Han characters of the
// three) but draw many of them differently, as each country writes them:
// its faces, in the order of the collection, are each language's.
const cjkFile = "NotoSansCJK-Regular.ttc"

// The faces of cjkFile.
const (
	cjkJP = iota
	cjkKR
	cjkSC
	cjkTC
	cjkHK
)

// cjkFace is the face of cjkFile for text in lang, a BCP 47 tag: "ja"
// Japanese, "ko" Korean, "zh" Chinese: Traditional ("zh-Hant", "zh-TW")
// as Taiwan writes it, as Hong Kong does for "zh-HK", "zh-MO" and
// Cantonese ("yue"), Simplified otherwise ("zh-Hans", "zh-CN", "zh").
// It is -1 for another language, whose text's face follows its script.
func cjkFace(lang string) int {
	tags := strings.Split(strings.ToLower(strings.ReplaceAll(lang, "_", "-")), "-")
	has := func(sub ...string) bool {
		for _, t := range tags[1:] {
			for _, s := range sub {
				if t == s {
					return true
				}
			}
		}
		return false
	}
	switch tags[0] {
	case "ja", "jpn":
		return cjkJP
	case "ko", "kor":
		return cjkKR
	case "zh", "zho", "chi", "cmn", "yue", "lzh", "wuu", "hak", "nan", "gan", "hsn":
		switch {
		case has("hk", "mo"):
			return cjkHK
		case has("hans", "cn", "sg", "my"):
			return cjkSC
		case has("hant", "tw"):
			return cjkTC
		case tags[0] == "yue":
			return cjkHK
		}
		return cjkSC
	}
	return -1
}

// guessCJK is the face of cjkFile for the Han characters of a paragraph
// of no CJK language, by the characters beside them: Japanese where it
// has kana, Korean where it has Hangul, Traditional Chinese where it has
// Bopomofo, Simplified Chinese for Han characters alone.
func guessCJK(text []rune) int {
	var hangul, bopomofo bool
	for _, r := range text {
		switch {
		case unicode.In(r, unicode.Hiragana, unicode.Katakana):
			return cjkJP
		case unicode.Is(unicode.Hangul, r):
			hangul = true
		case unicode.Is(unicode.Bopomofo, r):
			bopomofo = true
		}
	}
	switch {
	case hangul:
		return cjkKR
	case bopomofo:
		return cjkTC
	}
	return cjkSC
}
