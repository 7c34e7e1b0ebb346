package node

import (
	"fmt"
	"strings"
)

// LogLinesMax caps the lines a Logger keeps; when full the oldest line is
// dropped (the log is a diagnostic ring, not a record).
const LogLinesMax = 256

// Logger is the raft.Logger a node gives each of its raft groups: every
// line is stamped with the node's virtual time and kept in a bounded ring
// (debug lines are dropped); Fatal and Panic panic with the message. It
// never writes to a process-global sink.
type Logger struct {
	nodeID uint64
	nowNs  func() int64
	lines  []string
	next   int
	full   bool
}

// NewLogger returns a logger for node nodeID whose stamps come from nowNs.
func NewLogger(nodeID uint64, nowNs func() int64) *Logger {
	return &Logger{nodeID: nodeID, nowNs: nowNs, lines: make([]string, LogLinesMax)}
}

func (l *Logger) add(level, msg string) {
	line := fmt.Sprintf("t=%dns n%d %s %s", l.nowNs(), l.nodeID, level, strings.TrimRight(msg, "\n"))
	l.lines[l.next] = line
	l.next++
	if l.next == len(l.lines) {
		l.next, l.full = 0, true
	}
}

// Lines returns the kept lines, oldest first.
func (l *Logger) Lines() []string {
	if !l.full {
		return append([]string(nil), l.lines[:l.next]...)
	}
	out := append([]string(nil), l.lines[l.next:]...)
	return append(out, l.lines[:l.next]...)
}

// Debug drops the line: raft's debug output is too chatty to keep.
func (l *Logger) Debug(v ...interface{}) {}

// Debugf drops the line.
func (l *Logger) Debugf(format string, v ...interface{}) {}

// Info keeps the line.
func (l *Logger) Info(v ...interface{}) { l.add("INFO", fmt.Sprint(v...)) }

// Infof keeps the line.
func (l *Logger) Infof(format string, v ...interface{}) { l.add("INFO", fmt.Sprintf(format, v...)) }

// Warning keeps the line.
func (l *Logger) Warning(v ...interface{}) { l.add("WARN", fmt.Sprint(v...)) }

// Warningf keeps the line.
func (l *Logger) Warningf(format string, v ...interface{}) {
	l.add("WARN", fmt.Sprintf(format, v...))
}

// Error keeps the line.
func (l *Logger) Error(v ...interface{}) { l.add("ERROR", fmt.Sprint(v...)) }

// Errorf keeps the line.
func (l *Logger) Errorf(format string, v ...interface{}) { l.add("ERROR", fmt.Sprintf(format, v...)) }

// Fatal panics with the message: raft calls it on a broken invariant.
func (l *Logger) Fatal(v ...interface{}) { l.die(fmt.Sprint(v...)) }

// Fatalf panics with the message.
func (l *Logger) Fatalf(format string, v ...interface{}) { l.die(fmt.Sprintf(format, v...)) }

// Panic panics with the message.
func (l *Logger) Panic(v ...interface{}) { l.die(fmt.Sprint(v...)) }

// Panicf panics with the message.
func (l *Logger) Panicf(format string, v ...interface{}) { l.die(fmt.Sprintf(format, v...)) }

func (l *Logger) die(msg string) {
	l.add("PANIC", msg)
	panic(fmt.Sprintf("raft on node %d at t=%dns: %s", l.nodeID, l.nowNs(), msg))
}
