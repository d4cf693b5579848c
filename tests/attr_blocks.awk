# SPDX-License-Identifier: GPL-2.0-only
#
# The perf_event_attr blocks of a `stat -vv` log (perf's or bperf's) that were opened on cpu -1
# or cpu 0, open retries included, each followed by a "--" line: what attr_vs_perf.sh and
# hw_vs_perf.sh compare. awk -f tests/attr_blocks.awk < LOG
/^-+$/ && !inblk && !pending { inblk = 1; blk = ""; next }
inblk && /^-+$/ { inblk = 0; pending = 1; next }
inblk { blk = blk $0 "\n"; next }
pending && /^sys_perf_event_open: / {
	pending = 0
	if ($0 ~ /cpu (-1|0) /)
		printf "%s--\n", blk
	next
}
