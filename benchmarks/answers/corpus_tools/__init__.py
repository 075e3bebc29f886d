"""Code shared by the answer corpora's scripts in benchmarks/answers/<name>/.

gold.py holds the gold-set checks behind every check_gold.py; binaries.py writes the PDF and
Word documents that every build_binaries.py describes. Each corpus's scripts keep only their
data and the rules that are theirs alone.
"""
