/* SPDX-License-Identifier: MIT */
/*
 * The layout of CPython 3.11's thread state, frames, code and str objects on x86-64, as far
 * as rt-python.c reads them: the offsets of Include/cpython/pystate.h (PyThreadState,
 * _PyCFrame), Include/internal/pycore_frame.h (_PyInterpreterFrame), Include/cpython/
 * code.h (PyCodeObject) and Include/cpython/unicodeobject.h (PyASCIIObject,
 * PyCompactUnicodeObject). tests/unit/test-py311.c checks every one against the headers
 * when they are installed (python3.11-dev). No CPython header is needed to build memtap.
 */
#ifndef MEMTAP_RT_PY311_H
#define MEMTAP_RT_PY311_H

enum {
	PY311_TS_CFRAME = 56, /* PyThreadState.cframe */
	PY311_CF_CURRENT = 8, /* _PyCFrame.current_frame */
	PY311_CF_PREVIOUS = 16, /* _PyCFrame.previous */
	PY311_FR_CODE = 32, /* _PyInterpreterFrame.f_code */
	PY311_FR_PREVIOUS = 48, /* .previous */
	PY311_FR_PREV_INSTR = 56, /* .prev_instr */
	PY311_FR_IS_ENTRY = 68, /* .is_entry */
	PY311_FR_OWNER = 69, /* .owner */
	PY311_OWNED_BY_GENERATOR = 1, /* FRAME_OWNED_BY_GENERATOR */
	PY311_OB_TYPE = 8, /* PyObject.ob_type */
	PY311_OB_SIZE = 16, /* PyVarObject.ob_size: a code object's code units */
	PY311_CO_FIRSTLINENO = 72, /* PyCodeObject.co_firstlineno */
	PY311_CO_FILENAME = 112, /* .co_filename */
	PY311_CO_QUALNAME = 128, /* .co_qualname */
	PY311_CO_LINETABLE = 136, /* .co_linetable */
	PY311_CO_FIRSTTRACEABLE = 168, /* ._co_firsttraceable */
	PY311_CO_CODE = 184, /* .co_code_adaptive: the instructions, 2 bytes each */
	PY311_STR_LENGTH = 16, /* PyASCIIObject.length: code points */
	PY311_STR_STATE = 32, /* .state: interned:2 kind:3 compact:1 ascii:1 ready:1 */
	PY311_STR_ASCII_DATA = 48, /* sizeof(PyASCIIObject): a compact ASCII str's bytes */
	PY311_STR_COMPACT_DATA = 72, /* sizeof(PyCompactUnicodeObject): other compact strs' */
};

#endif
