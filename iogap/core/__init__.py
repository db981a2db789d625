'''The harness: what every measuring family builds on, behind these names
alone (docs/harness.md is their contract). A family subclasses
:class:`IogapTest`, registers with :func:`family`, declares its
:class:`Figures` and its variants (:data:`variant`), reads its job's
output through :class:`JobSteps`, and pairs a figure with a control it
ran beside it (:class:`Control`).'''

from iogap.core.base import IogapTest
from iogap.core.control import Control
from iogap.core.figures import Figure, Figures
from iogap.core.registry import family
from iogap.core.steps import JobSteps
from iogap.core.variants import size_bytes, size_text, variant

__all__ = ['IogapTest', 'family', 'Figure', 'Figures', 'variant',
           'JobSteps', 'Control', 'size_bytes', 'size_text']
