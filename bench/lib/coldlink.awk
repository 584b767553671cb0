# awk -f coldlink.awk SCRIPT: GNU ld's default linker script (ld --verbose,
# from the linker and flags of the link) rearranged for a cold start, for
# the link BOLT rewrites with its code back in the original .text: .rodata
# goes into the first read-only segment, after the dynamic relocations,
# and the data segment (from DATA_SEGMENT_ALIGN to DATA_SEGMENT_END)
# between it and the code.  The file then starts with all that start-up
# reads, in the order it reads it (headers and relocations, read-only
# data, data, the hot code BOLT puts first in .text), and the windows of
# read-ahead the loader opens at the start of the file run on into them
# rather than into the cold code.  Exit status 1, nothing printed, when
# the script does not have that shape.
{ line[NR] = $0 }
END {
	for (i = 1; i <= NR; i++) {
		if (!relr && line[i] ~ /^  \.relr\.dyn[ \t]*:/) relr = i
		if (!init && line[i] ~ /^  \.init[ \t]+:/) init = i
		if (!rodata && line[i] ~ /^  \.rodata[ \t]+:/) rodata = i
		if (rodata && !rodata1 && line[i] ~ /^  \.rodata1[ \t]+:/) rodata1 = i
		if (!data && line[i] ~ /Adjust the address for the data segment/) data = i
		if (data && !data_end && line[i] ~ /DATA_SEGMENT_END/) data_end = i
	}
	# the line before .init aligns the code segment on a page
	if (!relr || !init || !rodata || !rodata1 || !data || !data_end ||
	    !(relr < init && init < rodata && rodata1 < data) || line[init - 1] !~ /ALIGN\(CONSTANT \(MAXPAGESIZE\)\)/) {
		print "coldlink.awk: " FILENAME ": not GNU ld's default script for an executable" > "/dev/stderr"
		exit 1
	}
	for (i = 1; i <= NR; i++) {
		if (i == init - 1)
			for (j = data; j <= data_end; j++) print line[j]
		if ((i >= rodata && i <= rodata1) || (i >= data && i <= data_end))
			continue
		print line[i]
		if (i == relr)
			for (j = rodata; j <= rodata1; j++) print line[j]
	}
}
