package scenario

import (
	"fmt"
	"strings"
)

// Separator is the line between a command and its expected output.
const Separator = "----"

// FileHeader is a scenario file's first line: its format and version, a
// '#' line so that it reads as a comment too. It changes whenever the
// file's grammar does. A file without it (written before it existed) is
// read as v1, the only version so far; Format writes it.
const FileHeader = "# felixsim-scenario v1"

// fileHeaderPrefix opens any version's header line.
const fileHeaderPrefix = "# felixsim-scenario "

// Limits on what Parse accepts, so hostile input cannot exhaust memory.
const (
	// FileBytesMax is the largest scenario file Parse reads.
	FileBytesMax = 1 << 20
	// CommandsMax is the most commands one file may hold.
	CommandsMax = 4096
	// ArgsMax is the most words one command line may hold.
	ArgsMax = 256
)

// File is a parsed scenario.
type File struct {
	// Name is where the file came from, for error messages.
	Name string
	// Purpose is the opening paragraph's text, without the '#' marks.
	Purpose string
	// Header is the opening paragraph's lines as written.
	Header []string
	// Trailer are '#' lines after the last command.
	Trailer []string
	// Commands are the file's commands in order.
	Commands []Command
}

// Command is one command line and the output expected under it.
type Command struct {
	// Line is the command's 1-based line number in the file.
	Line int
	// Comments are the '#' lines above the command, reproduced verbatim
	// on rewrite.
	Comments []string
	// Text is the command line as written.
	Text string
	// Args are Text's words: quotes removed, '|' a word of its own.
	Args []string
	// Expected is the expected output, lines joined by '\n', no final newline.
	Expected string
}

// ParseError names the file, line and problem of a malformed scenario.
type ParseError struct {
	File string
	Line int
	Msg  string
}

func (e *ParseError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// Parse reads a scenario file's text.
func Parse(name, text string) (*File, error) {
	if len(text) > FileBytesMax {
		return nil, &ParseError{name, 1, fmt.Sprintf("file of %d bytes refused: the limit is %d", len(text), FileBytesMax)}
	}
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	f := &File{Name: name}
	i := 0
	if len(lines) > 0 && strings.HasPrefix(lines[0], fileHeaderPrefix) {
		if strings.TrimSpace(lines[0]) != FileHeader {
			return nil, &ParseError{name, 1, fmt.Sprintf("%q refused: this felixsim reads %q", strings.TrimSpace(lines[0]), FileHeader)}
		}
		i++
	}
	var purpose []string
	for i < len(lines) && strings.HasPrefix(lines[i], "#") {
		purpose = append(purpose, strings.TrimSpace(strings.TrimPrefix(lines[i], "#")))
		f.Header = append(f.Header, lines[i])
		i++
	}
	f.Purpose = strings.TrimSpace(strings.Join(purpose, " "))
	if f.Purpose == "" {
		return nil, &ParseError{name, 1, "no purpose paragraph: a scenario opens with '#' lines saying what it shows"}
	}
	var comments []string
	for i < len(lines) {
		ln := lines[i]
		switch {
		case strings.TrimSpace(ln) == "":
			i++
			continue
		case strings.HasPrefix(ln, "#"):
			comments = append(comments, ln)
			i++
			continue
		case ln == Separator:
			return nil, &ParseError{name, i + 1, "a \"----\" line with no command above it"}
		}
		if len(f.Commands) >= CommandsMax {
			return nil, &ParseError{name, i + 1, fmt.Sprintf("more than %d commands refused", CommandsMax)}
		}
		args, err := Split(ln)
		if err != nil {
			return nil, &ParseError{name, i + 1, err.Error()}
		}
		if !Known(args) {
			return nil, &ParseError{name, i + 1, unknownCommand(args)}
		}
		cmd := Command{Line: i + 1, Comments: comments, Text: strings.TrimSpace(ln), Args: args}
		comments = nil
		i++
		if i >= len(lines) || lines[i] != Separator {
			return nil, &ParseError{name, cmd.Line, fmt.Sprintf("command %q has no %q line under it", cmd.Text, Separator)}
		}
		i++
		var out []string
		for i < len(lines) && strings.TrimSpace(lines[i]) != "" {
			if lines[i] == Separator {
				return nil, &ParseError{name, i + 1, "a second \"----\" line: expected output ends at a blank line"}
			}
			out = append(out, lines[i])
			i++
		}
		cmd.Expected = strings.Join(out, "\n")
		f.Commands = append(f.Commands, cmd)
	}
	if len(comments) > 0 {
		f.Trailer = comments
	}
	if len(f.Commands) == 0 {
		return nil, &ParseError{name, len(lines), "no command: a scenario that runs nothing checks nothing"}
	}
	return f, nil
}

// Split cuts a command line into words: spaces separate, '...' quotes a
// word verbatim (no escapes), and '|' is always a word of its own.
func Split(line string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case ch == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated quote starting at column %d", i+1)
			}
			cur.WriteString(line[i+1 : i+1+j])
			inWord = true
			i += j + 1
		case ch == ' ' || ch == '\t':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		case ch == '|':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
			out = append(out, "|")
		default:
			cur.WriteByte(ch)
			inWord = true
		}
		if len(out) > ArgsMax {
			return nil, fmt.Errorf("more than %d words refused", ArgsMax)
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("empty command")
	}
	return out, nil
}

// Format renders f with the given outputs (one per command; nil: each
// command's expected output) as a scenario file.
func Format(f *File, outputs []string) string {
	var b strings.Builder
	b.WriteString(FileHeader + "\n")
	for _, ln := range f.Header {
		b.WriteString(ln + "\n")
	}
	for i, c := range f.Commands {
		b.WriteString("\n")
		for _, ln := range c.Comments {
			b.WriteString(ln + "\n")
		}
		out := c.Expected
		if outputs != nil {
			out = outputs[i]
		}
		b.WriteString(c.Text + "\n" + Separator + "\n")
		if out != "" {
			b.WriteString(out + "\n")
		}
	}
	if len(f.Trailer) > 0 {
		b.WriteString("\n")
	}
	for _, ln := range f.Trailer {
		b.WriteString(ln + "\n")
	}
	return b.String()
}
