'''The harness every measuring family builds on, behind these names alone
(docs/harness.md is their contract).'''

from iogap.core.base import IogapTest
from iogap.core.control import Control
from iogap.core.figures import Figure, Figures
from iogap.core.registry import family
from iogap.core.steps import JobSteps
from iogap.core.variants import size_bytes, size_text, variant

__all__ = ['IogapTest', 'family', 'Figure', 'Figures', 'variant',
           'JobSteps', 'Control', 'size_bytes', 'size_text']
