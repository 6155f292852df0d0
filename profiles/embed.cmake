# Turns a text file into a C string constant, with nothing but cmake:
#   cmake -DINPUT=<file> -DOUTPUT=<file.c> -DSYMBOL=<name> -P embed.cmake
# defines `const char SYMBOL[]` (NUL-terminated) and `const size_t SYMBOL_len`.
# Every byte is written as a \xNN escape, so no content can end the literal.
foreach(var INPUT OUTPUT SYMBOL)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "embed.cmake needs -D${var}=...")
  endif()
endforeach()

file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" digits)
math(EXPR bytes "${digits} / 2")

# 32 bytes (64 hex digits) a line, as adjacent string literals.
set(body "")
set(pos 0)
while(pos LESS digits)
  string(SUBSTRING "${hex}" ${pos} 64 chunk)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "\\\\x\\1" chunk "${chunk}")
  string(APPEND body "\t\"${chunk}\"\n")
  math(EXPR pos "${pos} + 64")
endwhile()

get_filename_component(name "${INPUT}" NAME)
file(WRITE "${OUTPUT}.tmp"
  "/* Generated from ${name} by profiles/embed.cmake at build time; do not edit. */\n"
  "#include \"profiles/profile.h\"\n\n"
  "const char ${SYMBOL}[] =\n${body}\t\"\";\n"
  "const size_t ${SYMBOL}_len = ${bytes};\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
