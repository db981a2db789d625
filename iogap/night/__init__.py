'''The nightly pipeline's driver (ci/gitlab-ci.yml): run one night of the
suite, compare it with the nights before, and judge it.

    iogap night            # in the suite job
    iogap verdict REPORT   # judge a run again from its files
'''
