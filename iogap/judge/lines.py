'''YAML that keeps the line of each mapping, key and list item, to report a
mistake with its line; a repeated key is refused, not silently the last.'''

import yaml

from iogap.errors import ReferenceFileError


class _Loader(yaml.SafeLoader):
    '''YAML with the line of every mapping and list item kept.'''


class Lines(dict):
    line, key_lines = 0, {}


class LineList(list):
    line, item_lines = 0, []


def _mapping(loader, node):
    data = Lines()
    data.line, data.key_lines = node.start_mark.line + 1, {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in data:
            raise ReferenceFileError(f'{loader.name}:'
                                     f'{key_node.start_mark.line + 1}: '
                                     f'{key}: duplicate key')
        data[key] = loader.construct_object(value_node, deep=True)
        data.key_lines[key] = key_node.start_mark.line + 1
    return data


def _sequence(loader, node):
    data = LineList(loader.construct_object(n, deep=True) for n in node.value)
    data.line = node.start_mark.line + 1
    data.item_lines = [n.start_mark.line + 1 for n in node.value]
    return data


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
                        _mapping)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG,
                        _sequence)


def line_of(data, path):
    '''The line of the deepest node of ``path`` that has one.'''
    line = getattr(data, 'line', 0)
    node = data
    for key in path:
        if isinstance(node, Lines) and key in node:
            line = node.key_lines.get(key, line)
        elif isinstance(node, LineList) and isinstance(key, int) and \
                key < len(node):
            line = node.item_lines[key]
        else:
            break
        node = node[key]
    return line


def load(path, text):
    '''The data of ``text`` (from ``path``), with its lines.'''
    loader = _Loader(text)
    loader.name = path
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()
