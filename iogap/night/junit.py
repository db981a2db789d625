'''The night's own verdicts as suites of its JUnit report, beside
ReFrame's: the change points, the effects, and what the night judged (its
coverage).'''

import xml.etree.ElementTree as ET

from iogap.judge import coverage

#: The statuses that fail and that skip a case of a suite (else these two)
STATUSES = {'changepoint': ('step', 'short'), 'effects': ('gone', 'short')}


def add_suite(path, suite_name, cases, out=None):
    '''``cases`` (``(name, status, message)``) as a suite of the JUnit
    report at ``path``, failed and skipped as :data:`STATUSES` says;
    ``out`` its system-out.'''
    try:
        tree = ET.parse(path)
        root = tree.getroot()
    except (OSError, ET.ParseError):
        root = ET.Element('testsuites')
        tree = ET.ElementTree(root)
    fail, skip = STATUSES.get(suite_name, ('fail', 'skip'))
    suite = ET.SubElement(root, 'testsuite', name=suite_name,
                          tests=str(len(cases)), failures=str(sum(
                              s == fail for _, s, _ in cases)),
                          skipped=str(sum(s == skip for _, s, _ in cases)))
    for name, status, message in cases:
        case = ET.SubElement(suite, 'testcase', classname=suite_name,
                             name=name)
        if status == fail:
            ET.SubElement(case, 'failure', type=suite_name, message=message)
        elif status == skip:
            ET.SubElement(case, 'skipped', message=message)
    if out:
        ET.SubElement(suite, 'system-out').text = out
    tree.write(path, encoding='utf-8', xml_declaration=True)


def add_coverage(path, lines):
    '''The summary's ``COVERAGE`` line as a suite: failed when the night
    judged nothing or less than the site's minimum.'''
    said = [line for line in lines if line.startswith('COVERAGE:')]
    if not said:
        return
    short = [line for line in lines
             if line.startswith((coverage.NOTHING, coverage.UNDER))]
    add_suite(path, 'coverage', [
        ('figures judged', 'fail' if short else 'pass',
         short[0] if short else said[0])], out=said[0])
