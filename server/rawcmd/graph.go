package rawcmd

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// token reads one token as ffmpeg's av_get_token does: leading blanks
// skipped, a backslash escapes the next character, 'quotes' keep
// everything up to the next quote, and it ends at any character of term
// outside quotes; trailing blanks are dropped. Filter names and options
// are read twice this way by ffmpeg (graph, then option level), so kino
// reads them the same way to see the names ffmpeg will see: mo'v'ie and
// mo\vie are both movie.
func token(s, term string) (tok, rest string) {
	const blanks = " \n\t\r"
	i := 0
	for i < len(s) && strings.IndexByte(blanks, s[i]) >= 0 {
		i++
	}
	var out []byte
	end := 0 // out[:end] is kept even when it ends in blanks
	for i < len(s) && strings.IndexByte(term, s[i]) < 0 {
		c := s[i]
		i++
		switch {
		case c == '\\' && i < len(s):
			out = append(out, s[i])
			i++
			end = len(out)
		case c == '\'':
			for i < len(s) && s[i] != '\'' {
				out = append(out, s[i])
				i++
			}
			if i < len(s) {
				i++
				end = len(out)
			}
		default:
			out = append(out, c)
		}
	}
	for len(out) > end && strings.IndexByte(blanks, out[len(out)-1]) >= 0 {
		out = out[:len(out)-1]
	}
	return string(out), s[i:]
}

// filterUse is one filter of a graph: its name and its options, in order,
// each with its key ("" when given by position).
type filterUse struct {
	name string
	opts [][2]string
}

// parseGraph reads a filter graph as ffmpeg's graph parser does: chains
// split by ';', filters by ',', [labels] around them, name=options.
func parseGraph(g string) ([]filterUse, error) {
	var out []filterUse
	s := g
	for {
		s = strings.TrimLeft(s, " \n\t\r")
		if s == "" {
			break
		}
		var err error
		if s, err = skipLabels(s); err != nil {
			return nil, err
		}
		var name string
		name, s = token(s, "=,;[")
		f := filterUse{name: name}
		if strings.HasPrefix(s, "=") {
			var args string
			args, s = token(s[1:], "[],;")
			if f.opts, err = parseOptions(args); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		}
		if f.name == "" {
			return nil, fmt.Errorf("a filter of the graph has no name")
		}
		out = append(out, f)
		if s, err = skipLabels(s); err != nil {
			return nil, err
		}
		s = strings.TrimLeft(s, " \n\t\r")
		if s != "" {
			if s[0] != ',' && s[0] != ';' {
				return nil, fmt.Errorf("unexpected %q after filter %s", s[:1], name)
			}
			s = s[1:]
		}
	}
	return out, nil
}

func skipLabels(s string) (string, error) {
	for {
		s = strings.TrimLeft(s, " \n\t\r")
		if !strings.HasPrefix(s, "[") {
			return s, nil
		}
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return "", fmt.Errorf("a [label] is never closed")
		}
		s = s[end+1:]
	}
}

// optionKey is what av_opt_get_key_value takes for a key.
var optionKey = regexp.MustCompile(`^[-A-Za-z0-9_/.+]+`)

// parseOptions reads a filter's options as ffmpeg does: ':'-separated,
// each key=value or a bare value taken by position.
func parseOptions(args string) ([][2]string, error) {
	var out [][2]string
	s := args
	for s != "" {
		key := ""
		if k := optionKey.FindString(s); k != "" && strings.HasPrefix(s[len(k):], "=") {
			key, s = k, s[len(k)+1:]
		}
		var v string
		v, s = token(s, ":")
		out = append(out, [2]string{key, v})
		s = strings.TrimPrefix(s, ":")
		if len(out) > 200 {
			return nil, fmt.Errorf("too many options")
		}
	}
	return out, nil
}

// fileFilter is a filter that opens a file named in its options: those
// options (and, for fileArg >= 0, the option at that position) must name
// a file staged in the job's folder.
type fileFilter struct {
	keys    []string
	fileArg int
}

//nolint:gochecknoglobals // read-only table: the filters whose options name files
var fileFilters = map[string]fileFilter{
	"subtitles": {keys: []string{"filename", "f", "fontsdir"}, fileArg: 0},
	"ass":       {keys: []string{"filename", "f", "fontsdir"}, fileArg: 0},
	"drawtext":  {keys: []string{"fontfile", "textfile"}, fileArg: 0},
	"lut3d":     {keys: []string{"file"}, fileArg: 0},
	"curves":    {keys: []string{"psfile"}, fileArg: -1},
}

// sizeValue is a picture size written as WxH.
var sizeValue = regexp.MustCompile(`^([1-9][0-9]*)x([1-9][0-9]*)$`)

// demuxedBy are the filters that open their file with ffmpeg's demuxers,
// which guess its format: such a file is probed like an -i input, so that
// a playlist staged as subs.srt is refused rather than followed.
//
//nolint:gochecknoglobals // read-only table: the filters that demux their file
var demuxedBy = map[string]bool{"subtitles": true, "ass": true}

// checkGraph checks every filter of a graph: its name is allowed, its
// file options name files of the folder (staged), no option loads its
// value from a file, and no size asks for more than maxPixels. demuxed
// is told each staged file a filter opens through a demuxer.
func checkGraph(word, graph string, staged map[string]bool, maxPixels int64, demuxed func(name string)) error {
	fs, err := parseGraph(graph)
	if err != nil {
		return errorf(word, "the filter graph %q cannot be read: %v", short(graph), err)
	}
	for _, f := range fs {
		base, _, _ := strings.Cut(f.name, "@")
		if !filters[base] {
			return errorf(f.name, "the filter %q is not allowed (filters that open files, sockets, devices or libraries are refused; see docs/media.md for the list)", f.name)
		}
		ff, opensFiles := fileFilters[base]
		for i, o := range f.opts {
			key, v := o[0], o[1]
			if strings.HasPrefix(key, "/") {
				return errorf(key, "filter %s: an option read from a file (%s) is not allowed", base, key)
			}
			if opensFiles {
				isFile := (key == "" && i == ff.fileArg) || contains(ff.keys, key)
				if key == "" && i > 0 && ff.fileArg >= 0 {
					return errorf(v, "filter %s: name its options after the first (key=value); %q is given by position", base, v)
				}
				if isFile && !(staged[v] || (key == "fontsdir" && v == ".")) {
					return errorf(v, "filter %s: %q is not a file of the job: a file a filter reads must be one of the job's named inputs", base, v)
				}
				if isFile && demuxedBy[base] && key != "fontsdir" {
					demuxed(v)
				}
			}
			if err := checkSize(base, key, v, maxPixels); err != nil {
				return err
			}
		}
		if base == "scale" || base == "pad" {
			if err := checkScale(base, f.opts, maxPixels); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkSize(filter, key, v string, maxPixels int64) error {
	m := sizeValue.FindStringSubmatch(v)
	if m == nil {
		return nil
	}
	w, _ := strconv.ParseInt(m[1], 10, 64)
	h, _ := strconv.ParseInt(m[2], 10, 64)
	if w > 100000 || h > 100000 || w*h > maxPixels {
		return errorf(v, "filter %s: the size %s is more than the limit of %d pixels", filter, v, maxPixels)
	}
	return nil
}

// checkScale refuses a scale or pad to a literal size past the limit.
func checkScale(filter string, opts [][2]string, maxPixels int64) error {
	var w, h int64
	for i, o := range opts {
		n, err := strconv.ParseInt(o[1], 10, 64)
		if err != nil {
			continue
		}
		switch {
		case o[0] == "w" || o[0] == "width" || (o[0] == "" && i == 0):
			w = n
		case o[0] == "h" || o[0] == "height" || (o[0] == "" && i == 1):
			h = n
		}
	}
	if w > 100000 || h > 100000 || w*h > maxPixels {
		return errorf(fmt.Sprintf("%dx%d", w, h), "filter %s: the size %dx%d is more than the limit of %d pixels", filter, w, h, maxPixels)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func short(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
