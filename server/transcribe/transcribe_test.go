package transcribe

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// demoTalk is the demo talk (server/demo), which flite's slt voice
// speaks (tools/demo-media.sh).
func demoTalk(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs("../demo/files/talk.mp4")
	require.NoError(t, err)
	return p
}

// talkWords are the demo talk's words as a Whisper-compatible service
// answers them (verbose_json, timestamp_granularities[]=word), timed as
// flite spoke them: the start and end of each word's first and last
// phone in flite's own segmentation of the talk.
func talkWords(t *testing.T) ([]byte, []Word) {
	t.Helper()
	data, err := os.ReadFile("testdata/talk-words.json")
	require.NoError(t, err)
	var v struct {
		Words []struct {
			Word       string
			Start, End float64
		}
	}
	require.NoError(t, json.Unmarshal(data, &v))
	var words []Word
	for _, w := range v.Words {
		words = append(words, Word{Start: w.Start, End: w.End, Text: w.Word})
	}
	return data, words
}

// TestWhisperWords asks for word timestamps as OpenAI's API defines them
// and reads the words of the answer into its segments; a service that
// answers with the segments' own words (whisper.cpp, WhisperX) or text
// alone is read too.
func TestWhisperWords(t *testing.T) {
	t.Parallel()
	answer, truth := talkWords(t)
	var body atomicBytes
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseMultipartForm(8 << 20); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if r.FormValue("response_format") != "verbose_json" || !slices.Equal(r.MultipartForm.Value["timestamp_granularities[]"], []string{"word", "segment"}) {
			http.Error(w, "word timestamps were not asked for", http.StatusBadRequest)
			return
		}
		_, _ = w.Write(body.get())
	}))
	t.Cleanup(srv.Close)
	audio := Audio{Path: demoTalk(t), Format: "mov", Dir: t.TempDir(), Duration: 7, Log: io.Discard}
	whisper := Whisper{URL: srv.URL}

	body.set(answer)
	cues, err := whisper.Transcribe(context.Background(), audio)
	require.NoError(t, err)
	require.Len(t, cues, 3)
	assert.Equal(t, "This short talk was made on this machine, with no network.", cues[1].Text)
	var got []Word
	for _, c := range cues {
		for _, w := range c.Words {
			assert.GreaterOrEqual(t, w.Start, c.Start-1e-9, "%s in its segment", w.Text)
		}
		got = append(got, c.Words...)
	}
	assert.Equal(t, truth, got)

	body.set([]byte(`{"segments":[{"start":0,"end":9,"text":" hi there","words":[{"word":" hi","start":0.5,"end":0.7},{"word":" there","start":0.8,"end":8}]}]}`))
	cues, err = whisper.Transcribe(context.Background(), audio)
	require.NoError(t, err)
	assert.Equal(t, []Cue{{Start: 0, End: 7, Text: "hi there", Words: []Word{{Start: 0.5, End: 0.7, Text: "hi"}, {Start: 0.8, End: 7, Text: "there"}}}}, cues, "cut to the sound")

	body.set([]byte(`{"text":" just text","segments":[]}`))
	cues, err = whisper.Transcribe(context.Background(), audio)
	require.NoError(t, err)
	assert.Equal(t, []Cue{{Start: 0, End: 7, Text: "just text"}}, cues)
}

type atomicBytes struct{ ch chan []byte }

func (a *atomicBytes) set(b []byte) {
	if a.ch == nil {
		a.ch = make(chan []byte, 1)
	}
	select {
	case <-a.ch:
	default:
	}
	a.ch <- b
}

func (a *atomicBytes) get() []byte {
	b := <-a.ch
	a.ch <- b
	return b
}

// TestPocketsphinxWordTimes runs the offline transcriber on the demo talk.
// ffmpeg's asr filter reports whole utterances, so word times are an
// estimate; measured here with the talk's own words laid over what the
// run heard (the pauses, the utterances' times), against the times flite
// spoke them, so that the recogniser's mistakes do not hide the timing's.
func TestPocketsphinxWordTimes(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(PocketsphinxModel); err != nil {
		t.Skip("no pocketsphinx model:", err)
	}
	_, truth := talkWords(t)
	audio := Audio{Path: demoTalk(t), Format: "mov", Dir: t.TempDir(), Duration: 7, Log: io.Discard}
	heard, pauses, err := Pocketsphinx{}.listen(context.Background(), audio)
	require.NoError(t, err)
	require.NotEmpty(t, heard)
	require.NotEmpty(t, pauses)

	var said []string
	for _, w := range truth {
		said = append(said, w.Text)
	}
	whole := []Cue{{Start: heard[0].Start, End: heard[len(heard)-1].End, Text: strings.Join(said, " ")}}
	timed := timeWords(whole, pauses)
	require.Len(t, timed, 1)
	require.Len(t, timed[0].Words, len(truth))
	estimate := errors(timed[0].Words, truth)
	// What captions did before: each word's share of the utterance by
	// its characters.
	var chars []float64
	total := 0
	for _, w := range said {
		total += len(w) + 1
	}
	at := 0
	for _, w := range said {
		chars = append(chars, whole[0].Start+(whole[0].End-whole[0].Start)*float64(at)/float64(total))
		at += len(w) + 1
	}
	var shared []Word
	for i, w := range truth {
		shared = append(shared, Word{Start: chars[i], Text: w.Text})
	}
	before := errors(shared, truth)
	t.Logf("word starts, estimate from pauses: max %.3f s, median %.3f s; by characters: max %.3f s, median %.3f s",
		estimate[len(estimate)-1], estimate[len(estimate)/2], before[len(before)-1], before[len(before)/2])
	assert.Less(t, estimate[len(estimate)-1], 0.2)
	assert.Less(t, estimate[len(estimate)/2], 0.1)
	assert.Less(t, estimate[len(estimate)/2], before[len(before)/2])

	// The transcriber's own words, timed the same way: in order, within
	// their utterance, which starts with its first word.
	cues, err := Pocketsphinx{}.Transcribe(context.Background(), audio)
	require.NoError(t, err)
	require.NotEmpty(t, cues)
	for _, c := range cues {
		require.Len(t, c.Words, len(strings.Fields(c.Text)))
		assert.InDelta(t, c.Start, c.Words[0].Start, 1e-9)
		assert.Greater(t, c.Start, 0.15, "the silence before the talk is not part of it")
		for i, w := range c.Words {
			assert.LessOrEqual(t, w.End, c.End+1e-9)
			if i > 0 {
				assert.GreaterOrEqual(t, w.Start, c.Words[i-1].End-1e-9)
			}
		}
	}
}

// errors are how far each word's start is from the truth's, sorted.
func errors(got, truth []Word) []float64 {
	out := make([]float64, len(got))
	for i := range got {
		out[i] = abs(got[i].Start - truth[i].Start)
	}
	sort.Float64s(out)
	return out
}
