"""Record-linkage attacks of the papers, each returning a :class:`LinkResult`.

* :func:`dbrl` distance-based, :func:`gdbrl` global one-to-one distance-based (Herranz, Nin, Rodríguez & Tassa 2015) (Muralidhar & Domingo-Ferrer (2016) §2), :func:`rbrl` rank-based (Muralidhar & Domingo-Ferrer (2016) §3);
* :func:`prl` probabilistic, Fellegi-Sunter with EM and one-to-one assignment (Nin, Herranz & Torra (2008, rank swapping); Nin, Herranz & Torra (2008, multivariate microaggregation));
* :func:`rsrl`, :func:`rsrl_annotated_union`, :func:`lrl_microaggregation`, :func:`lrl_mdav`:
  location linkage (Nin, Herranz & Torra (2008, rank swapping) §3, §6; Nin, Herranz & Torra (2007) §4);
* :func:`prl_graded`: Fellegi-Sunter with graded comparison levels (the project's extension, Fellegi & Sunter 1969);
* :func:`projected_rl`: projected record linkage (Nin, Herranz & Torra (2008, multivariate microaggregation) §4.1).
"""

from ..validation import prepare
from .base import LinkResult
from .distance import dbrl, dbrl_restricted
from .global_distance import gdbrl
from .graded import prl_graded
from .location import lrl_mdav, lrl_microaggregation, rank_swap_intervals, rsrl, rsrl_annotated_union
from .probabilistic import COINCIDENCE_RULES, em_fellegi_sunter, prl
from .projected import projected_rl
from .rank import rank_matrix, rbrl

__all__ = ["LinkResult", "prepare", "dbrl", "dbrl_restricted", "gdbrl", "rbrl", "rank_matrix", "prl", "COINCIDENCE_RULES",
           "em_fellegi_sunter", "rsrl", "rsrl_annotated_union", "lrl_microaggregation", "lrl_mdav",
           "rank_swap_intervals", "projected_rl", "prl_graded"]
