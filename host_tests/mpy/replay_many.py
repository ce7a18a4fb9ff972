# Under micropython: replay every record file named on the command line with
# --trace semantics and print its output, or its error, between markers.
import sys
import record

for path in sys.argv[1:]:
    print("==", path)
    try:
        _, out = record.replay(record.read_lines(path), trace=True)
        for line in out:
            print(line)
    except record.RecordError as e:
        print("error:", e)
