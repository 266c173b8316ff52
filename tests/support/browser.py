"""A stand-in browser for sign-in tests: GET the URL it is opened with, following redirects
(the authorize endpoint sends it back to auger's loopback callback)."""

import sys
import urllib.request

with urllib.request.urlopen(sys.argv[1], timeout=20) as response:
    response.read()
