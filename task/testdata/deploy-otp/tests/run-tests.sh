#!/bin/sh
test -f /srv/deployed
