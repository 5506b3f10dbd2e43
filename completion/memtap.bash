# SPDX-License-Identifier: MIT
# bash completion for memtap. It asks memtap itself (`memtap __complete CWORD WORD...`, which
# reads only its option tables and tracefs's tracepoint list: no side effects).
_memtap() {
	local line=${COMP_LINE:0:COMP_POINT} cur c pre IFS
	local -a words cands
	read -ra words <<<"$line"
	[[ -z $line || $line == *[[:space:]] ]] && words+=("")
	cur=${words[${#words[@]} - 1]}
	IFS=$'\n'
	cands=($("${words[0]}" __complete "$((${#words[@]} - 1))" "${words[@]}" 2>/dev/null))
	COMPREPLY=()
	for c in "${cands[@]}"; do
		case $c in
		@files)
			COMPREPLY+=($(compgen -f -- "$cur"))
			compopt -o filenames 2>/dev/null
			;;
		@commands) COMPREPLY+=($(compgen -c -- "$cur")) ;;
		*) COMPREPLY+=("$c") ;;
		esac
	done
	# bash puts a candidate in place of the part of the word after its last '=' or ':'
	if [[ $cur == *[=:]* ]]; then
		pre=${cur%"${cur##*[=:]}"}
		COMPREPLY=("${COMPREPLY[@]#"$pre"}")
	fi
	if [[ ${#COMPREPLY[@]} == 1 && ${COMPREPLY[0]} == *= ]]; then
		compopt -o nospace 2>/dev/null
	fi
	return 0
}
complete -F _memtap memtap
