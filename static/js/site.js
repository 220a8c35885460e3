// Site-wide behaviour. Kept in a file (never inline) so the Content-Security-Policy needs no 'unsafe-inline'.
