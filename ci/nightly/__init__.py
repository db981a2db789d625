'''The nightly pipeline's driver (ci/gitlab-ci.yml): run one night of the
suite, compare it with the nights before, and judge it.

    python -m ci.nightly suite            # in the suite job
    python -m ci.nightly verdict REPORT   # judge a run again from its files
'''
