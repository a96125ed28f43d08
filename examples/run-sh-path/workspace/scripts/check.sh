#!/bin/sh
# Checks that an orders file has the expected header.
f=${1:-data/orders.csv}
head -n 1 "$f" | grep -qx 'id,customer,amount' || {
	echo "bad header in $f" >&2
	exit 1
}
echo "ok: $f"
