#!/bin/sh
# Verifier for deploy-otp: ./.deployed must exist, be recent, and name a code
# that was valid at the time of the deploy. Runs from the workdir.
set -u

fail() {
	echo "FAIL: $1"
	exit 1
}

[ -f .deployed ] || fail "./.deployed not found: the service was not deployed"
[ -n "${OTP_SECRET:-}" ] || fail "OTP_SECRET is not set"
period=${OTP_PERIOD:-30}
line=$(head -n 1 .deployed)
code=$(echo "$line" | sed -n 's/^deployed with code \([0-9a-f]\{8\}\) at \([0-9][0-9]*\)$/\1/p')
at=$(echo "$line" | sed -n 's/^deployed with code \([0-9a-f]\{8\}\) at \([0-9][0-9]*\)$/\2/p')
[ -n "$code" ] && [ -n "$at" ] || fail "unexpected ./.deployed content: $line"

now=$(date +%s)
age=$((now - at))
[ "$age" -ge -5 ] || fail "deploy time $at is in the future"
[ "$age" -le 3600 ] || fail "deploy is $age seconds old: expected a deploy in the last hour"

window=$((at / period))
for w in "$window" "$((window - 1))"; do
	if [ "$code" = "$(printf '%s:%s' "$OTP_SECRET" "$w" | sha256sum | cut -c1-8)" ]; then
		echo "PASS: deployed with a valid code ${age}s ago"
		exit 0
	fi
done
fail "code $code was not valid at $at"
