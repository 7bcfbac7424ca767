package psd

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// tyShBytes is a TySh block's payload as Photoshop writes it: versions,
// a transform, and a text descriptor holding the text and, when sub is
// not nil, substitutesUsed.
func tyShBytes(text string, sub *bool) []byte {
	var b bytes.Buffer
	put := func(v any) { _ = binary.Write(&b, binary.BigEndian, v) }
	put(uint16(1))
	b.Write(make([]byte, 48))
	put(uint16(50))
	put(uint32(16))
	put(uint32(0)) // class name: empty
	put(uint32(0))
	b.WriteString("TxLr")
	n := uint32(1)
	if sub != nil {
		n++
	}
	put(n)
	put(uint32(0))
	b.WriteString("Txt TEXT")
	put(uint32(len(text)))
	for _, r := range text {
		put(uint16(r))
	}
	if sub != nil {
		put(uint32(len("substitutesUsed")))
		b.WriteString("substitutesUsedbool")
		v := uint8(0)
		if *sub {
			v = 1
		}
		put(v)
	}
	return b.Bytes()
}

// TestTextSubstituted: a text layer says whether its fonts were
// substituted where it was last saved (uv-icons.psd of
// UniversalViewer/design holds true), and a file too old to say
// (Photoshop CS6 and before) reads as not substituted.
func TestTextSubstituted(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	for _, c := range []struct {
		sub  *bool
		want bool
	}{{&yes, true}, {&no, false}, {nil, false}} {
		b := tyShBytes("padlock", c.sub)
		d, l := &decoder{lim: Limits{}.withDefaults()}, &Layer{}
		if err := d.text(l, newCursor(bytes.NewReader(b), 0, int64(len(b)), "TySh")); err != nil {
			t.Fatal(err)
		}
		if l.Kind != KindText || l.Text == nil || l.Text.Value != "padlock" || l.Text.Substituted != c.want {
			t.Errorf("substitutesUsed %v: %+v", c.sub, l.Text)
		}
	}
}
