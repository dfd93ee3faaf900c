"""The rating chart's description reads the history in its order (no database).

Bug: a history of 996 then 986 was described "From 986 to 996" (lowest to highest). Now it is
"From 996 to 986", with the range said separately.
"""

from __future__ import annotations

from django.template import Context, Template
from django.utils import translation

from ratings.charts import line_chart

DESC = (
    "{% load i18n %}{% blocktranslate with first=chart.first last=chart.last low=chart.low "
    "high=chart.high %}From {{ first }} to {{ last }} (lowest {{ low }}, highest {{ high }}); "
    "the table below has every value.{% endblocktranslate %}"
)


def test_the_chart_goes_from_the_first_value_to_the_last() -> None:
    chart = line_chart([996, 986])
    assert chart is not None
    assert (chart.first, chart.last) == (996, 986)
    assert (chart.low, chart.high) == (986, 996)
    chart = line_chart([1000, 1040, 980, 1010])
    assert chart is not None
    assert (chart.first, chart.last, chart.low, chart.high) == (1000, 1010, 980, 1040)


def test_the_profile_template_describes_first_to_last() -> None:
    """The profile's <desc> (templates/ratings/player_profile.html) with the same words."""
    with open("templates/ratings/player_profile.html", encoding="utf-8") as f:
        assert DESC.split("%}", 1)[1] in f.read()
    with translation.override("en"):
        text = Template(DESC).render(Context({"chart": line_chart([996, 986])}))
    assert text.startswith("From 996 to 986 (lowest 986, highest 996)")
