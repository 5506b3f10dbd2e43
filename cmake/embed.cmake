# SPDX-License-Identifier: MIT
# cmake -DIN=file -DOUT=file.c -DNAME=symbol -P embed.cmake: a C file defining NAME as the
# bytes of IN, NUL-terminated (the view's page parts, built into the binary).
file(READ ${IN} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
file(WRITE ${OUT} "/* generated from ${IN} by cmake/embed.cmake */\nextern const char ${NAME}[];\nconst char ${NAME}[] = {${body}0};\n")
