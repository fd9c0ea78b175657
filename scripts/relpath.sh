#!/bin/sh
# relpath.sh FROM TO - the relative path from directory FROM to directory
# TO (both absolute, need not exist), for relocatable installs.
set -eu
from=$(printf '%s\n' "$1" | sed 's|/*$||; s|//*|/|g')
to=$(printf '%s\n' "$2" | sed 's|/*$||; s|//*|/|g')
common=$from
up=""
while :; do
	case $to/ in
	"$common"/*) break ;;
	esac
	common=$(dirname "$common")
	up="../$up"
done
rest=${to#"$common"}
rest=${rest#/}
out="$up$rest"
[ -n "$out" ] || out=.
printf '%s\n' "${out%/}"
