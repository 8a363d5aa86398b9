"""Lazy SMP: the depths the helpers search are staggered."""
from hub_engine.engine.threads import helper_depths


def test_the_first_two_helpers_split_the_depths_between_them():
    one, two = helper_depths(1, 20), helper_depths(2, 20)
    assert set(one[:-1]).isdisjoint(two[:-1])
    assert sorted(set(one) | set(two)) == list(range(1, 21))


def test_every_helper_ends_at_the_search_depth_and_goes_up():
    for k in range(1, 45):
        for max_depth in (1, 2, 7, 60):
            depths = helper_depths(k, max_depth)
            assert depths[-1] == max_depth
            assert depths == sorted(set(depths)) and depths[0] >= 1
