package glyphs

import (
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/go-text/typesetting/language"
)

// Machine is the fonts on the machine that text falls back to when the
// fonts it was given lack a character: Debian's Noto fonts
// (fonts-noto-core, fonts-noto-cjk, fonts-noto-color-emoji), chosen by
// the character's script. Fonts are found once, by file name, under the
// directories given, and read the first time a character needs them;
// a font missing from the machine is skipped. A Machine is safe for
// concurrent use.
type Machine struct {
	dirs []string

	once  sync.Once
	files map[string]string // file name → path

	mu    sync.Mutex
	fonts map[fontKey]*Font
}

type fontKey struct {
	name  string
	index int
}

// machineFont is one font of the fallback: a file name and the index of
// the font in it (a collection's).
type machineFont struct {
	name  string
	index int
}

// byScript is the font of each script kino knows a Noto font for. The
// CJK scripts' font is a collection, drawn in the face of the text's
// language (cjkFace) or, without one, the face here (see find).
//
//nolint:gochecknoglobals // read-only table: the Noto font of each script
var byScript = map[language.Script]machineFont{
	language.Latin:               {"NotoSans-Regular.ttf", 0},
	language.Greek:               {"NotoSans-Regular.ttf", 0},
	language.Cyrillic:            {"NotoSans-Regular.ttf", 0},
	language.Arabic:              {"NotoSansArabic-Regular.ttf", 0},
	language.Hebrew:              {"NotoSansHebrew-Regular.ttf", 0},
	language.Devanagari:          {"NotoSansDevanagari-Regular.ttf", 0},
	language.Bengali:             {"NotoSansBengali-Regular.ttf", 0},
	language.Tamil:               {"NotoSansTamil-Regular.ttf", 0},
	language.Telugu:              {"NotoSansTelugu-Regular.ttf", 0},
	language.Kannada:             {"NotoSansKannada-Regular.ttf", 0},
	language.Malayalam:           {"NotoSansMalayalam-Regular.ttf", 0},
	language.Gujarati:            {"NotoSansGujarati-Regular.ttf", 0},
	language.Gurmukhi:            {"NotoSansGurmukhi-Regular.ttf", 0},
	language.Oriya:               {"NotoSansOriya-Regular.ttf", 0},
	language.Sinhala:             {"NotoSansSinhala-Regular.ttf", 0},
	language.Thai:                {"NotoSansThai-Regular.ttf", 0},
	language.Lao:                 {"NotoSansLao-Regular.ttf", 0},
	language.Khmer:               {"NotoSansKhmer-Regular.ttf", 0},
	language.Myanmar:             {"NotoSansMyanmar-Regular.ttf", 0},
	language.Tibetan:             {"NotoSerifTibetan-Regular.ttf", 0},
	language.Georgian:            {"NotoSansGeorgian-Regular.ttf", 0},
	language.Armenian:            {"NotoSansArmenian-Regular.ttf", 0},
	language.Ethiopic:            {"NotoSansEthiopic-Regular.ttf", 0},
	language.Thaana:              {"NotoSansThaana-Regular.ttf", 0},
	language.Syriac:              {"NotoSansSyriac-Regular.ttf", 0},
	language.Mongolian:           {"NotoSansMongolian-Regular.ttf", 0},
	language.Cherokee:            {"NotoSansCherokee-Regular.ttf", 0},
	language.Javanese:            {"NotoSansJavanese-Regular.ttf", 0},
	language.Balinese:            {"NotoSansBalinese-Regular.ttf", 0},
	language.Sundanese:           {"NotoSansSundanese-Regular.ttf", 0},
	language.Tifinagh:            {"NotoSansTifinagh-Regular.ttf", 0},
	language.Nko:                 {"NotoSansNKo-Regular.ttf", 0},
	language.Adlam:               {"NotoSansAdlam-Regular.ttf", 0},
	language.Vai:                 {"NotoSansVai-Regular.ttf", 0},
	language.Yi:                  {"NotoSansYi-Regular.ttf", 0},
	language.Canadian_Aboriginal: {"NotoSansCanadianAboriginal-Regular.ttf", 0},
	language.Hiragana:            {cjkFile, cjkJP},
	language.Katakana:            {cjkFile, cjkJP},
	language.Hangul:              {cjkFile, cjkKR},
	language.Han:                 {cjkFile, cjkSC},
	language.Bopomofo:            {cjkFile, cjkTC},
}

//nolint:gochecknoglobals // read-only: the emoji font and the fonts of no script
var (
	emojiFont = machineFont{"NotoColorEmoji.ttf", 0}
	// anyScript is tried, in order, for a character of no script in
	// byScript or that its script's font lacks: punctuation, symbols,
	// arrows, mathematics, music, emoji.
	anyScript = []machineFont{
		{"NotoSans-Regular.ttf", 0},
		{"NotoSansSymbols2-Regular.ttf", 0},
		{"NotoSansSymbols-Regular.ttf", 0},
		{"NotoSansMath-Regular.ttf", 0},
		{"NotoMusic-Regular.ttf", 0},
		emojiFont,
		{cjkFile, cjkSC},
	}
)

// DefaultDirs are where Debian puts fonts.
func DefaultDirs() []string { return []string{"/usr/share/fonts", "/usr/local/share/fonts"} }

// NewMachine is the fallback fonts found under dirs.
func NewMachine(dirs ...string) *Machine {
	return &Machine{dirs: dirs, fonts: map[fontKey]*Font{}}
}

// scan finds the font files under the machine's directories, once.
func (m *Machine) scan() {
	m.once.Do(func() {
		m.files = map[string]string{}
		for _, dir := range m.dirs {
			_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
				if err != nil {
					return nil
				}
				if !d.IsDir() {
					if _, seen := m.files[d.Name()]; !seen {
						m.files[d.Name()] = path
					}
				}
				return nil
			})
		}
	})
}

// load is the machine font mf, or nil when the machine lacks it or it
// cannot be read.
func (m *Machine) load(mf machineFont) *Font {
	m.scan()
	key := fontKey(mf)
	m.mu.Lock()
	defer m.mu.Unlock()
	if f, ok := m.fonts[key]; ok {
		return f
	}
	var f *Font
	if path, ok := m.files[mf.name]; ok {
		if data, err := os.ReadFile(path); err == nil {
			f, _ = ParseIndex(data, mf.index)
		}
	}
	m.fonts[key] = f
	return f
}

// Path is where the machine holds the font file name, or "".
func (m *Machine) Path(name string) string {
	m.scan()
	return m.files[name]
}

// find is a machine font that has r, a character of script, or nil. The
// CJK collection's face is face, that of the text's language; without
// one (-1), kana are drawn in the Japanese face, Hangul in the Korean,
// Bopomofo in the Traditional Chinese, and Han characters in guess, the
// paragraph's (guessCJK).
func (m *Machine) find(r rune, script language.Script, face, guess int) *Font {
	if m == nil {
		return nil
	}
	try := func(mf machineFont) *Font {
		switch {
		case mf.name != cjkFile:
		case face >= 0:
			mf.index = face
		case script != language.Hiragana && script != language.Katakana && script != language.Hangul && script != language.Bopomofo:
			mf.index = guess
		}
		if f := m.load(mf); f != nil && f.Has(r) {
			return f
		}
		return nil
	}
	if isEmoji(r) {
		if f := try(emojiFont); f != nil {
			return f
		}
	}
	if !script.Strong() {
		script = language.LookupScript(r)
	}
	if mf, ok := byScript[script]; ok {
		if f := try(mf); f != nil {
			return f
		}
	}
	for _, mf := range anyScript {
		if f := try(mf); f != nil {
			return f
		}
	}
	return nil
}

// isEmoji reports a character usually drawn as an emoji picture: the
// pictographs, emoticons, transport and map symbols, supplemental
// symbols and regional indicators. Dingbats and miscellaneous symbols
// (U+2600–U+27BF) are drawn from the text's fonts when they have them,
// as browsers do without a variation selector.
func isEmoji(r rune) bool {
	return r >= 0x1F000 && r <= 0x1FAFF
}
