package node

import (
	"fmt"
	"reflect"
	"strings"
)

// LogLinesMax caps the lines a Logger keeps; when full the oldest line is
// dropped (the log is a diagnostic ring, not a record).
const LogLinesMax = 256

// Logger is the raft.Logger a node gives each of its raft groups: every
// line is stamped with the node's virtual time and kept in a bounded ring
// (debug lines are dropped); Fatal and Panic panic with the message. It
// never writes to a process-global sink.
//
// A line is formatted only when Lines reads it: raft logs every election
// step, and formatting each line cost 7-11% of the CPU of election-heavy
// runs whose log nobody read. A line whose arguments are all plain values
// (numbers, strings, booleans and types made of them, which cannot change
// after the call) keeps them as given; any other argument (a pointer, a
// slice, an error) could change before Lines, so such a line is formatted
// at once, as before.
type Logger struct {
	nodeID uint64
	nowNs  func() int64
	lines  []logLine
	next   int
	full   bool
}

// logLine is one kept line, formatted or not: format "" means fmt.Sprint
// of args.
type logLine struct {
	atNs   int64
	level  string
	format string
	args   []any
}

// text formats the line.
func (l *logLine) text(nodeID uint64) string {
	var msg string
	if l.format == "" {
		msg = fmt.Sprint(l.args...)
	} else {
		msg = fmt.Sprintf(l.format, l.args...)
	}
	return fmt.Sprintf("t=%dns n%d %s %s", l.atNs, nodeID, l.level, strings.TrimRight(msg, "\n"))
}

// NewLogger returns a logger for node nodeID whose stamps come from nowNs.
func NewLogger(nodeID uint64, nowNs func() int64) *Logger {
	return &Logger{nodeID: nodeID, nowNs: nowNs, lines: make([]logLine, LogLinesMax)}
}

// add keeps a line of format and args (format "" is fmt.Sprint's).
func (l *Logger) add(level, format string, args []any) {
	if !plainValues(args) {
		if format == "" {
			args = []any{fmt.Sprint(args...)}
		} else {
			args = []any{fmt.Sprintf(format, args...)}
		}
		format = ""
	}
	l.lines[l.next] = logLine{atNs: l.nowNs(), level: level, format: format, args: args}
	l.next++
	if l.next == len(l.lines) {
		l.next, l.full = 0, true
	}
}

// plainValues reports whether every argument is a value that cannot
// change after the call: a boolean, number or string (or a named type of
// one, such as raftpb.MessageType).
func plainValues(args []any) bool {
	for _, a := range args {
		switch reflect.ValueOf(a).Kind() {
		case reflect.Bool, reflect.String,
			reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
			reflect.Float32, reflect.Float64:
		default:
			return false
		}
	}
	return true
}

// Lines returns the kept lines, oldest first.
func (l *Logger) Lines() []string {
	kept := l.lines[:l.next]
	if l.full {
		kept = append(append([]logLine(nil), l.lines[l.next:]...), kept...)
	}
	out := make([]string, len(kept))
	for i := range kept {
		out[i] = kept[i].text(l.nodeID)
	}
	return out
}

// Debug drops the line: raft's debug output is too chatty to keep.
func (l *Logger) Debug(v ...interface{}) {}

// Debugf drops the line.
func (l *Logger) Debugf(format string, v ...interface{}) {}

// Info keeps the line.
func (l *Logger) Info(v ...interface{}) { l.add("INFO", "", v) }

// Infof keeps the line.
func (l *Logger) Infof(format string, v ...interface{}) { l.add("INFO", format, v) }

// Warning keeps the line.
func (l *Logger) Warning(v ...interface{}) { l.add("WARN", "", v) }

// Warningf keeps the line.
func (l *Logger) Warningf(format string, v ...interface{}) { l.add("WARN", format, v) }

// Error keeps the line.
func (l *Logger) Error(v ...interface{}) { l.add("ERROR", "", v) }

// Errorf keeps the line.
func (l *Logger) Errorf(format string, v ...interface{}) { l.add("ERROR", format, v) }

// Fatal panics with the message: raft calls it on a broken invariant.
func (l *Logger) Fatal(v ...interface{}) { l.die(fmt.Sprint(v...)) }

// Fatalf panics with the message.
func (l *Logger) Fatalf(format string, v ...interface{}) { l.die(fmt.Sprintf(format, v...)) }

// Panic panics with the message.
func (l *Logger) Panic(v ...interface{}) { l.die(fmt.Sprint(v...)) }

// Panicf panics with the message.
func (l *Logger) Panicf(format string, v ...interface{}) { l.die(fmt.Sprintf(format, v...)) }

func (l *Logger) die(msg string) {
	l.add("PANIC", "", []any{msg})
	panic(fmt.Sprintf("raft on node %d at t=%dns: %s", l.nodeID, l.nowNs(), msg))
}
