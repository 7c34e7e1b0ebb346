package bareraft

import (
	"fmt"
)

// quietLogger is raft's logger in the harness: it drops every line (a
// felixsim broker formats a line only when it is read) and panics on
// Panic and Fatal, as a host must.
type quietLogger struct{}

func (quietLogger) Debug(...any)            {}
func (quietLogger) Debugf(string, ...any)   {}
func (quietLogger) Error(...any)            {}
func (quietLogger) Errorf(string, ...any)   {}
func (quietLogger) Info(...any)             {}
func (quietLogger) Infof(string, ...any)    {}
func (quietLogger) Warning(...any)          {}
func (quietLogger) Warningf(string, ...any) {}

func (quietLogger) Fatal(v ...any) { panic(fmt.Sprint(append([]any{"raft fatal: "}, v...)...)) }
func (quietLogger) Fatalf(format string, v ...any) {
	panic(fmt.Sprintf("raft fatal: "+format, v...))
}
func (quietLogger) Panic(v ...any) { panic(fmt.Sprint(append([]any{"raft panic: "}, v...)...)) }
func (quietLogger) Panicf(format string, v ...any) {
	panic(fmt.Sprintf("raft panic: "+format, v...))
}
