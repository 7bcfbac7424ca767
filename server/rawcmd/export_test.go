package rawcmd

// FilterNames are the names of a graph's filters as kino reads them.
func FilterNames(graph string) ([]string, error) {
	fs, err := parseGraph(graph)
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.name
	}
	return names, err
}
