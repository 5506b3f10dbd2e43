#!/bin/sh
# SPDX-License-Identifier: MIT
# Output paths in a directory another user can write to (a sticky, world-writable one, like
# /tmp): that user plants symlinks to a root-only file at every name memtap could use. No
# writer may follow one: without --force the output is refused, with it the symlink itself
# is replaced; temporary names are unpredictable. Traces are 0600; parents are never made.
. "$(dirname "$0")/lib.sh"
need ptrace
[ "$(id -u)" = 0 ] || skip "needs root (the planting user is nobody)"
command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"

"$MEMTAP" record -q -o t.mtap -- "$WORKLOADS/alloc-exact" >/dev/null || fail "record failed"
[ "$(stat -c %a t.mtap)" = 600 ] || fail "a trace is $(stat -c %a t.mtap), not 600"
"$MEMTAP" record -q -o t644.mtap --mode 0644 -- true || fail "record --mode failed"
[ "$(stat -c %a t644.mtap)" = 644 ] || fail "--mode 0644 gave $(stat -c %a t644.mtap)"
ok "traces are 0600 (--mode 0644 widens them)"

chmod 711 "$T" # the other user reaches shared/, nothing else
mkdir -m 1777 shared
printf 'root secret\n' >victim
chmod 600 victim
sum0=$(sha256sum <victim)
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

# plant NAME: NAME and every old-style temporary name of the next 3,000 pids point at victim.
plant() {
	next=$(($(cat /proc/sys/kernel/ns_last_pid) + 1))
	nobody /usr/bin/python3 -c 'import os, sys
n, d, v, p = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
for name in [n] + ["%s.tmp.%d" % (n, p + i) for i in range(3000)]:
    os.symlink(v, os.path.join(d, name))' "$1" "$T/shared" "$T/victim" "$next"
}

# writer NAME FUNC: with NAME planted, FUNC -o shared/NAME must refuse, FUNC -f -o ... must
# replace the symlink; the victim never changes.
writer() {
	name=$1
	shift
	plant "$name"
	"$@" -o "shared/$name" >/dev/null 2>w.err && fail "$name: written over a planted symlink without --force"
	grep -q "already exists\|already holds" w.err || { cat w.err; fail "$name: no 'already exists' message"; }
	"$@" -f -o "shared/$name" >/dev/null 2>w.err || { cat w.err; fail "$name: --force failed"; }
	[ "$(sha256sum <victim)" = "$sum0" ] || fail "$name: the planted symlink's target was written"
	[ -L "shared/$name" ] && fail "$name: --force left the symlink in place"
	rm -f shared/*
}

w_record() { "$MEMTAP" record -q "$@" -- true; }
w_view() { "$MEMTAP" view t.mtap "$@"; }
w_perfetto() { "$MEMTAP" export t.mtap --to perfetto "$@"; }
w_folded() { "$MEMTAP" export t.mtap --to folded "$@"; }
w_plot() { "$MEMTAP" plot t.mtap --kind rss "$@"; }
writer t2.mtap w_record
writer v.html w_view
writer p.json w_perfetto
writer f.txt w_folded
writer fig.svg w_plot
ok "record, view, perfetto, folded and plot: no planted symlink followed, --force replaces the path"

# Table directories: a symlinked directory is refused; the files inside get the same care.
plant csvdir
"$MEMTAP" export t.mtap --to csv -f -o shared/csvdir >/dev/null 2>w.err && fail "csv: wrote into a symlinked directory"
rm -f shared/*
mkdir -m 1777 shared/csv
nobody ln -s "$T/victim" shared/csv/processes.csv
"$MEMTAP" export t.mtap --to csv -o shared/csv >/dev/null 2>w.err && fail "csv: a planted processes.csv was overwritten without --force"
"$MEMTAP" export t.mtap --to csv -f -o shared/csv >/dev/null 2>w.err || { cat w.err; fail "csv --force failed"; }
[ "$(sha256sum <victim)" = "$sum0" ] || fail "csv: the planted symlink's target was written"
[ -f shared/csv/processes.csv ] && [ ! -L shared/csv/processes.csv ] || fail "csv: processes.csv is not a new file"
ok "table exports: a symlinked directory refused, planted files replaced, never followed"

# SQLite: a dangling symlink's target is never created.
nobody ln -s "$T/shared/created-by-root.db" shared/db.sqlite
"$MEMTAP" export t.mtap --to sqlite -o shared/db.sqlite >/dev/null 2>w.err && fail "sqlite: opened through a symlink"
[ -e shared/created-by-root.db ] && fail "sqlite: created a dangling symlink's target"
ok "sqlite: a dangling symlink refused, its target not created"

# SQLite: a block device, a FIFO or a directory at the path is refused, with or without
# --force (adding a run to a device once wrote over it, exit 0).
truncate -s 8M disk.img
blk=$(losetup -f --show disk.img 2>/dev/null) || blk=
[ -n "$blk" ] && trap 'losetup -d "$blk" 2>/dev/null; rm -rf "$T"' EXIT
mkfifo shared/fifo.db
for target in ${blk:+"$blk"} shared/fifo.db shared; do
	for force in "" -f; do
		timeout 20 "$MEMTAP" export t.mtap --to sqlite $force -o "$target" >/dev/null 2>w.err &&
			fail "sqlite: added a run to $target ($force)"
		grep -q "not a regular file" w.err || fail "sqlite into $target: $(cat w.err)"
	done
done
if [ -n "$blk" ]; then
	cmp -s -n 8388608 disk.img /dev/zero || fail "sqlite: the block device was written to"
	losetup -d "$blk"
fi
ok "sqlite: ${blk:+a block device, }a FIFO and a directory refused, nothing written"

# Parents are never created.
for fmt in csv parquet; do
	"$MEMTAP" export t.mtap --to $fmt -o nothere/a/b >/dev/null 2>w.err && fail "$fmt: exported under a missing parent"
	[ -e nothere ] && fail "$fmt: created the missing parents"
done
"$MEMTAP" view t.mtap -o nothere/v.html >/dev/null 2>w.err && fail "view: wrote under a missing directory"
[ -e nothere ] && fail "view: created a missing directory"
ok "missing parents: refused, nothing created"
