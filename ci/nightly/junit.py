'''The change points' verdicts as their own suite of the night's JUnit
report, beside ReFrame's.'''

import xml.etree.ElementTree as ET


def add_junit(path, cases):
    '''Add the verdicts as their own ``changepoint`` suite to the JUnit
    report at ``path`` (made if missing).'''
    try:
        tree = ET.parse(path)
        root = tree.getroot()
    except (OSError, ET.ParseError):
        root = ET.Element('testsuites')
        tree = ET.ElementTree(root)
    suite = ET.SubElement(root, 'testsuite', name='changepoint',
                          tests=str(len(cases)), failures=str(sum(
                              s == 'step' for _, s, _ in cases)),
                          skipped=str(sum(s == 'short' for _, s, _ in cases)))
    for name, status, message in cases:
        case = ET.SubElement(suite, 'testcase', classname='changepoint',
                             name=name)
        if status == 'step':
            ET.SubElement(case, 'failure', type='step change',
                          message=message)
        elif status == 'short':
            ET.SubElement(case, 'skipped', message=message)
    tree.write(path, encoding='utf-8', xml_declaration=True)
