"""Meaning, offline: which topics of everyday life a text is about (a word list per topic, English
and Chinese), a static embedding of it (an embedded model's token vectors; Chinese read through a
Chinese-English dictionary), and whether a remembered statement is related to a request.

Pure apart from reading the model's and the dictionary's files from their installed packages once
per process: no network, no clock, no server.
"""
