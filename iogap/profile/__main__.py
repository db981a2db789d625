'''Print the tables of docs/profile.md: python -m iogap.profile'''

from iogap.profile import schema

print(schema.markdown(), end='')
