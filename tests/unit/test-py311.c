/* SPDX-License-Identifier: MIT */
/*
 * The runtime reads CPython 3.11's frames through fixed offsets (src/rt/py311.h): each one
 * must be what the interpreter's own headers say. Skips (77) when python3.11-dev is not
 * installed; scripts/install-deps.sh installs it for the test suite.
 */
#include <stdio.h>

#ifdef MT_PY311_HEADERS
#define Py_BUILD_CORE 1
#include <Python.h>
#include <internal/pycore_frame.h>

#include <stddef.h>
#include <string.h>

#include "rt/py311.h"
#include "mt-test.h"

MT_TEST_MAIN()

TEST(version)
{
	/* the headers are the ones of the interpreter the runtime accepts */
	ASSERT_EQ(PY_MAJOR_VERSION, 3);
	ASSERT_EQ(PY_MINOR_VERSION, 11);
}

TEST(thread_state_and_frames)
{
	ASSERT_EQ_U(offsetof(PyThreadState, cframe), PY311_TS_CFRAME);
	ASSERT_EQ_U(offsetof(_PyCFrame, current_frame), PY311_CF_CURRENT);
	ASSERT_EQ_U(offsetof(_PyCFrame, previous), PY311_CF_PREVIOUS);
	ASSERT_EQ_U(offsetof(_PyInterpreterFrame, f_code), PY311_FR_CODE);
	ASSERT_EQ_U(offsetof(_PyInterpreterFrame, previous), PY311_FR_PREVIOUS);
	ASSERT_EQ_U(offsetof(_PyInterpreterFrame, prev_instr), PY311_FR_PREV_INSTR);
	ASSERT_EQ_U(offsetof(_PyInterpreterFrame, is_entry), PY311_FR_IS_ENTRY);
	ASSERT_EQ_U(offsetof(_PyInterpreterFrame, owner), PY311_FR_OWNER);
	ASSERT_EQ_U(sizeof(((_PyInterpreterFrame *)0)->is_entry), 1);
	ASSERT_EQ_U(sizeof(((_PyInterpreterFrame *)0)->owner), 1);
	ASSERT_EQ(FRAME_OWNED_BY_GENERATOR, PY311_OWNED_BY_GENERATOR);
}

TEST(code_objects)
{
	ASSERT_EQ_U(offsetof(PyObject, ob_type), PY311_OB_TYPE);
	ASSERT_EQ_U(offsetof(PyVarObject, ob_size), PY311_OB_SIZE);
	ASSERT_EQ_U(offsetof(PyCodeObject, co_firstlineno), PY311_CO_FIRSTLINENO);
	ASSERT_EQ_U(sizeof(((PyCodeObject *)0)->co_firstlineno), 4);
	ASSERT_EQ_U(offsetof(PyCodeObject, co_filename), PY311_CO_FILENAME);
	ASSERT_EQ_U(offsetof(PyCodeObject, co_qualname), PY311_CO_QUALNAME);
	ASSERT_EQ_U(offsetof(PyCodeObject, co_linetable), PY311_CO_LINETABLE);
	ASSERT_EQ_U(offsetof(PyCodeObject, _co_firsttraceable), PY311_CO_FIRSTTRACEABLE);
	ASSERT_EQ_U(sizeof(((PyCodeObject *)0)->_co_firsttraceable), 4);
	ASSERT_EQ_U(offsetof(PyCodeObject, co_code_adaptive), PY311_CO_CODE);
	ASSERT_EQ_U(sizeof(_Py_CODEUNIT), 2);
}

TEST(strings)
{
	PyASCIIObject a;

	ASSERT_EQ_U(offsetof(PyASCIIObject, length), PY311_STR_LENGTH);
	ASSERT_EQ_U(offsetof(PyASCIIObject, state), PY311_STR_STATE);
	ASSERT_EQ_U(sizeof(PyASCIIObject), PY311_STR_ASCII_DATA);
	ASSERT_EQ_U(sizeof(PyCompactUnicodeObject), PY311_STR_COMPACT_DATA);
	/* the state bits, as the runtime decodes them from the word at PY311_STR_STATE */
	memset(&a, 0, sizeof(a));
	a.state.kind = PyUnicode_2BYTE_KIND;
	a.state.compact = 1;
	a.state.ascii = 1;
	{
		unsigned w;

		memcpy(&w, (char *)&a + PY311_STR_STATE, sizeof(w));
		ASSERT_EQ_U((w >> 2) & 7, PyUnicode_2BYTE_KIND);
		ASSERT_EQ_U((w >> 5) & 1, 1);
		ASSERT_EQ_U((w >> 6) & 1, 1);
	}
}
#else
int main(void)
{
	printf("skip: python3.11-dev's headers are not installed (scripts/install-deps.sh "
	       "installs them)\n");
	return 77;
}
#endif
