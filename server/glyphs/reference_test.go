package glyphs

import (
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// minPSNR is the least PSNR, in dB over the text's box, at which a line
// kino draws is HarfBuzz's (hb-view's) drawing of the same string, font
// and size: the same glyphs in the same places. Both antialias the same
// outlines at the same subpixel positions with different rasterisers
// (cairo's and x/image/vector's), which differ along the edges: the lines
// here measure 22.8 dB (Thai) to 44 dB (Chinese). Measured on the same
// lines, the text moved by half a pixel scores 15 to 21.5 dB, by a pixel
// under 15.5 dB, without kerning 6 to 18 dB (where the font kerns), and
// without the script's shaping features 6.8 to 14.6 dB.
const minPSNR = 22

// references are one line of each script, each in its Noto font.
var references = []struct {
	name, text, file string
	index            int
}{
	{"Devanagari", "हिन्दी भाषा क्षेत्र", "NotoSansDevanagari-Regular.ttf", 0},
	{"Bengali", "বাংলা ভাষা ক্ষেত্র", "NotoSansBengali-Regular.ttf", 0},
	{"Tamil", "தமிழ் மொழி இலக்கியம்", "NotoSansTamil-Regular.ttf", 0},
	{"Arabic", "اللغة العربية جميلة", "NotoSansArabic-Regular.ttf", 0},
	{"Hebrew", "השפה העברית יפה", "NotoSansHebrew-Regular.ttf", 0},
	{"Thai", "ภาษาไทยสวยงาม", "NotoSansThai-Regular.ttf", 0},
	{"Chinese", "中文字体排版", "NotoSansCJK-Regular.ttc", 2},
	{"Japanese", "日本語のテキスト", "NotoSansCJK-Regular.ttc", 0},
	{"Korean", "한국어 텍스트", "NotoSansCJK-Regular.ttc", 1},
	{"Latin", "AVATAR Type WAVE", "NotoSans-Regular.ttf", 0},
	// kino's default font.
	{"DejaVu", "AVATAR Type WAVE", "DejaVuSans.ttf", 0},
}

const referenceSize = 56

// needHarfBuzz skips the test naming what is missing, unless
// KINO_REQUIRE_HARFBUZZ=1, where it fails.
func needHarfBuzz(t *testing.T, what string) {
	t.Helper()
	if os.Getenv("KINO_REQUIRE_HARFBUZZ") == "1" {
		t.Fatalf("%s is missing (KINO_REQUIRE_HARFBUZZ=1): install libharfbuzz-bin and fonts-noto-core, fonts-noto-cjk, fonts-noto-color-emoji", what)
	}
	t.Skipf("%s is missing: install libharfbuzz-bin and fonts-noto-core, fonts-noto-cjk, fonts-noto-color-emoji", what)
}

func TestDrawsAsHarfBuzz(t *testing.T) {
	hbView, err := exec.LookPath("hb-view")
	if err != nil {
		needHarfBuzz(t, "hb-view")
	}
	m := Default()
	for _, ref := range references {
		t.Run(ref.name, func(t *testing.T) {
			path := m.Path(ref.file)
			if path == "" {
				needHarfBuzz(t, ref.file)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f, err := ParseIndex(data, ref.index)
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "hb.png")
			cmd := exec.Command(hbView, "--font-size="+strconv.Itoa(referenceSize), "--margin=0", "--background=FFFFFF", "--foreground=000000",
				"--face-index="+strconv.Itoa(ref.index), "--output-format=png", "-o", out, path, ref.text)
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("hb-view: %v: %s", err, b)
			}
			want := readPNG(t, out)

			lay := NewShaper([]*Font{f}, nil).Layout(ref.text, Options{Size: referenceSize})
			if len(lay.Lines) != 1 || len(lay.Missing) > 0 {
				t.Fatalf("laid out in %d lines, missing %q", len(lay.Lines), lay.Missing)
			}
			got := image.NewNRGBA(want.Bounds())
			draw.Draw(got, got.Bounds(), image.White, image.Point{}, draw.Src)
			// hb-view puts the baseline the font's ascent below the top,
			// rounded to the pixel.
			lay.Draw(got, []Point{{0, math.Round(lay.Ascent)}}, Paint{Fill: color.NRGBA{A: 255}})
			psnr, box := comparePSNR(got, want)
			width := lay.Lines[0].Width
			t.Logf("%s: PSNR %.1f dB over the text's box %v; width %.2f px, hb-view's picture %d px", ref.name, psnr, box, width, want.Bounds().Dx())
			if psnr < minPSNR {
				writePNG(t, filepath.Join(os.TempDir(), "kino-glyphs-"+ref.name+"-got.png"), got)
				writePNG(t, filepath.Join(os.TempDir(), "kino-glyphs-"+ref.name+"-want.png"), want)
				t.Errorf("PSNR %.1f dB < %d dB against hb-view (pictures in %s)", psnr, minPSNR, os.TempDir())
			}
			if math.Abs(width-float64(want.Bounds().Dx())) > 1 {
				t.Errorf("the line is %.2f px wide, hb-view's %d px", width, want.Bounds().Dx())
			}
		})
	}
}

// comparePSNR is the PSNR of a against b, grey levels, over the box
// holding the ink of both (the pixels not white).
func comparePSNR(a, b image.Image) (float64, image.Rectangle) {
	box := ink(a).Union(ink(b))
	var se float64
	n := 0
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			d := grey(a.At(x, y)) - grey(b.At(x, y))
			se += d * d
			n++
		}
	}
	if n == 0 || se == 0 {
		return math.Inf(1), box
	}
	return 10 * math.Log10(255*255/(se/float64(n))), box
}

func grey(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	return (0.299*float64(r) + 0.587*float64(g) + 0.114*float64(b)) / 257
}

// ink is the box of a's pixels that are not white.
func ink(a image.Image) image.Rectangle {
	var r image.Rectangle
	b := a.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if grey(a.At(x, y)) < 250 {
				r = r.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return r
}

func readPNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func writePNG(t *testing.T, path string, img image.Image) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
}
