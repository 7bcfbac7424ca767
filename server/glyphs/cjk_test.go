package glyphs

import (
	"image"
	"image/color"
	"image/draw"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// TestHanByLanguage draws the same Han characters, which Japanese and
// Chinese write differently, in DejaVu Sans (which lacks them) with the
// machine's fonts behind it: each language's drawing is HarfBuzz's in
// that language's face of the CJK collection, and the two differ.
func TestHanByLanguage(t *testing.T) {
	hbView, err := exec.LookPath("hb-view")
	if err != nil {
		needHarfBuzz(t, "hb-view")
	}
	path := Default().Path(cjkFile)
	if path == "" {
		needHarfBuzz(t, cjkFile)
	}
	dejavu := readMachineFont(t, "DejaVuSans.ttf", 0)
	const text = "骨直角"
	langs := []struct {
		lang string
		face int
	}{{"ja", cjkJP}, {"zh-Hans", cjkSC}, {"zh-Hant", cjkTC}, {"ko", cjkKR}}
	got := map[string]image.Image{}
	for _, l := range langs {
		out := filepath.Join(t.TempDir(), "hb.png")
		cmd := exec.Command(hbView, "--font-size="+strconv.Itoa(referenceSize), "--margin=0", "--background=FFFFFF", "--foreground=000000",
			"--face-index="+strconv.Itoa(l.face), "--language="+l.lang, "--output-format=png", "-o", out, path, text)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("hb-view: %v: %s", err, b)
		}
		want := readPNG(t, out)

		lay := NewShaper([]*Font{dejavu}, Default()).Layout(text, Options{Size: referenceSize, Lang: l.lang})
		if len(lay.Lines) != 1 || len(lay.Missing) > 0 {
			t.Fatalf("%s: laid out in %d lines, missing %q", l.lang, len(lay.Lines), lay.Missing)
		}
		img := image.NewNRGBA(want.Bounds())
		draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
		// hb-view puts the baseline the CJK font's ascent below the top.
		ascent, _, _ := readMachineFont(t, cjkFile, l.face).Metrics(referenceSize)
		lay.Draw(img, []Point{{0, math.Round(ascent)}}, Paint{Fill: color.NRGBA{A: 255}})
		got[l.lang] = img
		psnr, box := comparePSNR(img, want)
		t.Logf("%s: PSNR %.1f dB against hb-view's face %d over %v", l.lang, psnr, l.face, box)
		if psnr < minPSNR {
			writePNG(t, filepath.Join(os.TempDir(), "kino-glyphs-"+l.lang+"-got.png"), img)
			writePNG(t, filepath.Join(os.TempDir(), "kino-glyphs-"+l.lang+"-want.png"), want)
			t.Errorf("%s: PSNR %.1f dB < %d dB against hb-view's face %d (pictures in %s)", l.lang, psnr, minPSNR, l.face, os.TempDir())
		}
	}
	// The languages' drawings differ as much as a glyph moved by a pixel
	// would.
	for _, pair := range [][2]string{{"ja", "zh-Hans"}, {"zh-Hans", "zh-Hant"}, {"ko", "zh-Hans"}} {
		psnr, _ := comparePSNR(got[pair[0]], got[pair[1]])
		t.Logf("%s against %s: PSNR %.1f dB", pair[0], pair[1], psnr)
		if psnr >= minPSNR {
			t.Errorf("%s and %s draw alike (PSNR %.1f dB): the face does not follow the language", pair[0], pair[1], psnr)
		}
	}
}

// TestCJKFaceWithoutLanguage: with no language, Han characters are
// Simplified Chinese alone, Japanese beside kana, Korean beside Hangul.
func TestCJKFaceWithoutLanguage(t *testing.T) {
	for _, c := range []struct {
		text string
		face int
	}{{"中文字体", cjkSC}, {"日本語のテキスト", cjkJP}, {"한국어 漢字", cjkKR}, {"ㄅㄆ", cjkTC}, {"Latin", cjkSC}} {
		if got := guessCJK([]rune(c.text)); got != c.face {
			t.Errorf("%q: face %d, want %d", c.text, got, c.face)
		}
	}
	for lang, face := range map[string]int{"ja": cjkJP, "ja-JP": cjkJP, "ko-KR": cjkKR, "zh": cjkSC, "zh-CN": cjkSC, "zh-Hans": cjkSC,
		"zh-Hant": cjkTC, "zh-TW": cjkTC, "zh-Hant-HK": cjkHK, "zh-HK": cjkHK, "yue": cjkHK, "en": -1, "fr-CA": -1} {
		if got := cjkFace(lang); got != face {
			t.Errorf("%s: face %d, want %d", lang, got, face)
		}
	}
}
