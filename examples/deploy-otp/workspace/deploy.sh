#!/bin/sh
# Deploys the service. Needs a one-time password from the OTP service in
# ./.deploy_otp; a code is accepted during the OTP window it was issued in and
# the next one (OTP_PERIOD seconds each), then it expires.
set -u
cd "$(dirname "$0")" || exit 1

reject() {
	echo "deploy rejected: $1" >&2
	exit 1
}

[ -n "${OTP_SECRET:-}" ] || reject "OTP_SECRET is not set"
period=${OTP_PERIOD:-30}
[ -f .deploy_otp ] || reject "no OTP found in ./.deploy_otp"
code=$(tr -d ' \t\r\n' < .deploy_otp)

# window_code N prints the code of OTP window N: sha256("<secret>:<N>"), first 8 hex digits.
window_code() {
	printf '%s:%s' "$OTP_SECRET" "$1" | sha256sum | cut -c1-8
}

now=$(date +%s)
window=$((now / period))
for w in "$window" "$((window - 1))"; do
	if [ "$code" = "$(window_code "$w")" ]; then
		echo "deployed with code $code at $now" > .deployed
		echo "deployed"
		exit 0
	fi
done
reject "OTP invalid or expired"
