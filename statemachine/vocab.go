package statemachine

import "github.com/felixsim/felixsim/felix"

// Transitional aliases while callers move to package felix; removed in the
// next commit.
type (
	Scope     = felix.Scope
	Record    = felix.Record
	StateOp   = felix.StateOp
	Entry     = felix.Entry
	EventKind = felix.EventKind
	OpKind    = felix.OpKind
)

const (
	EventInvalid    = felix.EventInvalid
	EventPublish    = felix.EventPublish
	EventEnqueue    = felix.EventEnqueue
	OpInvalid       = felix.OpInvalid
	OpPut           = felix.OpPut
	OpDelete        = felix.OpDelete
	KeyLenMax       = felix.KeyLenMax
	ValueLenMax     = felix.ValueLenMax
	PayloadLenMax   = felix.PayloadLenMax
	OpsPerRecordMax = felix.OpsPerRecordMax
	NameLenMax      = felix.NameLenMax
)

var (
	ErrInvalidRecord = felix.ErrInvalidRecord
	ErrInvalidScope  = felix.ErrInvalidScope
)
