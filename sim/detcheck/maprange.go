package detcheck

import (
	"go/ast"
	"go/token"
	"go/types"
)

// collectMapNames records every identifier and struct field declared or
// assigned with a syntactic map type, for ranges whose type the partial
// type check could not resolve.
func (c *checker) collectMapNames(f *ast.File) {
	isMap := func(e ast.Expr) bool {
		switch e := e.(type) {
		case *ast.MapType:
			return true
		case *ast.CompositeLit:
			_, ok := e.Type.(*ast.MapType)
			return ok
		case *ast.CallExpr:
			if id, ok := e.Fun.(*ast.Ident); ok && id.Name == "make" && len(e.Args) > 0 {
				_, ok := e.Args[0].(*ast.MapType)
				return ok
			}
		}
		return false
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Field:
			if isMap(n.Type) {
				for _, name := range n.Names {
					c.mapNames[name.Name] = true
				}
			}
		case *ast.ValueSpec:
			for i, name := range n.Names {
				if isMap(n.Type) || (i < len(n.Values) && isMap(n.Values[i])) {
					c.mapNames[name.Name] = true
				}
			}
		case *ast.AssignStmt:
			for i, lhs := range n.Lhs {
				if id, ok := lhs.(*ast.Ident); ok && i < len(n.Rhs) && isMap(n.Rhs[i]) {
					c.mapNames[id.Name] = true
				}
			}
		case *ast.KeyValueExpr:
			if id, ok := n.Key.(*ast.Ident); ok && isMap(n.Value) {
				c.mapNames[id.Name] = true
			}
		}
		return true
	})
}

// rangesOverMap decides whether x is a map: by its type where the partial
// type check resolved it, else by the name heuristic.
func (c *checker) rangesOverMap(x ast.Expr) bool {
	if tv, ok := c.info.Types[x]; ok && tv.Type != nil && tv.Type != types.Typ[types.Invalid] {
		_, isMap := tv.Type.Underlying().(*types.Map)
		return isMap
	}
	switch x := x.(type) {
	case *ast.Ident:
		return c.mapNames[x.Name]
	case *ast.SelectorExpr:
		return c.mapNames[x.Sel.Name]
	case *ast.ParenExpr:
		return c.rangesOverMap(x.X)
	}
	return false
}

func (c *checker) rangeStmt(n *ast.RangeStmt, sorted map[string]bool) {
	if !c.rangesOverMap(n.X) || orderFree(n, sorted) {
		return
	}
	c.report(n, "maprange", "range over a map: its order is random; collect the keys, sort them, then iterate (or mark //det:ok <reason>)")
}

// orderFree accepts a map range whose body cannot leak the iteration order:
// it only appends to slices the same function sorts (optionally under an
// if without else), deletes from a map, or inserts the range key into a set
// (m[key] = literal or the range value).
func orderFree(n *ast.RangeStmt, sorted map[string]bool) bool {
	return len(n.Body.List) > 0 && orderFreeStmts(n.Body.List, n, sorted)
}

func orderFreeStmts(list []ast.Stmt, n *ast.RangeStmt, sorted map[string]bool) bool {
	for _, st := range list {
		switch st := st.(type) {
		case *ast.AssignStmt:
			if len(st.Lhs) != 1 || len(st.Rhs) != 1 || !(sortedAppend(st, sorted) || setInsert(st, n)) {
				return false
			}
		case *ast.ExprStmt:
			call, ok := st.X.(*ast.CallExpr)
			if !ok || !isIdent(call.Fun, "delete") {
				return false
			}
		case *ast.IfStmt:
			if st.Init != nil || st.Else != nil || !(minMaxFold(st) || orderFreeStmts(st.Body.List, n, sorted)) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// minMaxFold matches `if x < acc { acc = x }` (any of < <= > >=, either
// side): a running minimum or maximum, the same in any order because ties
// assign an equal value.
func minMaxFold(st *ast.IfStmt) bool {
	cond, ok := st.Cond.(*ast.BinaryExpr)
	if !ok || len(st.Body.List) != 1 {
		return false
	}
	switch cond.Op {
	case token.LSS, token.LEQ, token.GTR, token.GEQ:
	default:
		return false
	}
	as, ok := st.Body.List[0].(*ast.AssignStmt)
	if !ok || as.Tok != token.ASSIGN || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
		return false
	}
	acc, val := exprString(as.Lhs[0]), exprString(as.Rhs[0])
	x, y := exprString(cond.X), exprString(cond.Y)
	return acc != "" && val != "" && ((x == val && y == acc) || (x == acc && y == val))
}

// exprString renders identifiers and selector chains (a, a.b.c); anything
// else (calls, indexing) renders as "" and never matches.
func exprString(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		if x := exprString(e.X); x != "" {
			return x + "." + e.Sel.Name
		}
	}
	return ""
}

// sortedAppend matches s = append(s, ...) with s sorted later.
func sortedAppend(st *ast.AssignStmt, sorted map[string]bool) bool {
	dst, ok := st.Lhs[0].(*ast.Ident)
	call, ok2 := st.Rhs[0].(*ast.CallExpr)
	return ok && ok2 && isIdent(call.Fun, "append") && len(call.Args) >= 2 && isIdent(call.Args[0], dst.Name) && sorted[dst.Name]
}

// setInsert matches set[key] = literal (or = value), key and value being the
// range variables: the result is the same in any order.
func setInsert(st *ast.AssignStmt, n *ast.RangeStmt) bool {
	if st.Tok != token.ASSIGN {
		return false
	}
	idx, ok := st.Lhs[0].(*ast.IndexExpr)
	key, ok2 := n.Key.(*ast.Ident)
	if !ok || !ok2 || !isIdent(idx.Index, key.Name) {
		return false
	}
	switch rhs := st.Rhs[0].(type) {
	case *ast.BasicLit:
		return true
	case *ast.Ident:
		if rhs.Name == "true" || rhs.Name == "false" {
			return true
		}
		v, ok := n.Value.(*ast.Ident)
		return ok && rhs.Name == v.Name
	}
	return false
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// sortedSlices returns the names of slices fn passes to a sort function.
func sortedSlices(fn *ast.FuncDecl) map[string]bool {
	out := map[string]bool{}
	ast.Inspect(fn, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		pkg, ok := sel.X.(*ast.Ident)
		if !ok || !sortFuncs[pkg.Name+"."+sel.Sel.Name] {
			return true
		}
		if id, ok := call.Args[0].(*ast.Ident); ok {
			out[id.Name] = true
		}
		return true
	})
	return out
}
