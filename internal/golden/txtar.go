package golden

import (
	"bytes"
	"strings"
)

// Archive is a parsed txtar archive.
type Archive struct {
	Comment string
	Files   []File
}

// File is one file of an Archive.
type File struct {
	Name string
	Data string
}

// Parse parses a txtar archive. It never fails: text before the first
// marker line is the comment, and a file runs to the next marker or the end.
func Parse(data []byte) *Archive {
	a := &Archive{}
	comment, name, rest := nextFile(data)
	a.Comment = string(comment)
	for name != "" {
		var body []byte
		next := name
		body, name, rest = nextFile(rest)
		a.Files = append(a.Files, File{Name: next, Data: string(body)})
	}
	return a
}

// nextFile returns the text before the next marker line, the marker's file
// name ("" when there is none) and the text after the marker line.
func nextFile(data []byte) (before []byte, name string, after []byte) {
	for i := 0; i <= len(data); {
		line := data[i:]
		end := bytes.IndexByte(line, '\n')
		if end >= 0 {
			line = line[:end]
		}
		if n, ok := marker(line); ok {
			if end < 0 {
				return data[:i], n, nil
			}
			return data[:i], n, data[i+end+1:]
		}
		if end < 0 {
			break
		}
		i += end + 1
	}
	return data, "", nil
}

// marker reports whether line is "-- name --" and returns the name.
func marker(line []byte) (string, bool) {
	s := strings.TrimRight(string(line), "\r")
	if !strings.HasPrefix(s, "-- ") || !strings.HasSuffix(s, " --") || len(s) < len("-- x --") {
		return "", false
	}
	name := strings.TrimSpace(s[3 : len(s)-3])
	return name, name != ""
}

// Format writes a back in the txtar format; every file ends with a newline.
func Format(a *Archive) []byte {
	var b bytes.Buffer
	b.WriteString(withNewline(a.Comment))
	for _, f := range a.Files {
		b.WriteString("-- " + f.Name + " --\n")
		b.WriteString(withNewline(f.Data))
	}
	return b.Bytes()
}

func withNewline(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// File returns the data of the named file and whether a has it.
func (a *Archive) File(name string) (string, bool) {
	for _, f := range a.Files {
		if f.Name == name {
			return f.Data, true
		}
	}
	return "", false
}

// Set replaces the data of the named file, or appends the file.
func (a *Archive) Set(name, data string) {
	for i, f := range a.Files {
		if f.Name == name {
			a.Files[i].Data = data
			return
		}
	}
	a.Files = append(a.Files, File{Name: name, Data: data})
}
