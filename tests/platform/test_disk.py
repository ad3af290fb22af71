"""The one way deletions remove things from disk (anonymizer.platform.disk): only inside the allowed root, never
through a symbolic link, and the directories left empty up to the root, never the root itself."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import FileSystemStorage

from anonymizer.platform import disk


def tree(root: Path) -> list[str]:
    return sorted(str(path.relative_to(root)) for path in root.rglob("*"))


@pytest.fixture
def root(tmp_path) -> Path:
    root = tmp_path / "var"
    (root / "uploads" / "5" / "a").mkdir(parents=True)
    (root / "uploads" / "5" / "a" / "posts.csv").write_text("text\n")
    (root / "uploads" / "5" / "b").mkdir()
    (root / "uploads" / "5" / "b" / "other.csv").write_text("text\n")
    return root


def test_a_tree_goes_with_the_directories_it_emptied_up_to_the_root(root):
    assert disk.remove(root / "uploads" / "5" / "a", root=root)
    assert tree(root) == ["uploads", "uploads/5", "uploads/5/b", "uploads/5/b/other.csv"]  # 5/ still holds b
    assert disk.remove(root / "uploads" / "5" / "b" / "other.csv", root=root)
    assert root.is_dir() and tree(root) == []  # b, 5 and uploads were emptied; the root itself stays
    assert not disk.remove(root / "uploads" / "5" / "b", root=root)  # gone already: nothing to do, no error


def test_paths_outside_the_root_or_the_root_itself_are_refused(root, tmp_path):
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("keep me")
    for path in (root, root / ".", root / "uploads" / "..", outside, root / ".." / "elsewhere.txt", Path("/"),
                 root / "uploads" / ".." / ".." / "elsewhere.txt"):
        with pytest.raises(disk.OutsideRoot):
            disk.remove(path, root=root)
    with pytest.raises(disk.OutsideRoot):
        disk.remove_empty_parents(outside, root=root)
    assert outside.read_text() == "keep me" and len(tree(root)) == 6


def test_a_link_is_removed_as_a_link_and_never_followed(root, tmp_path):
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "keys.txt").write_text("keep me")
    # The path itself a link to a directory outside: the link goes, not what it points to.
    (root / "uploads" / "5" / "a" / "linked").symlink_to(secret, target_is_directory=True)
    assert disk.remove(root / "uploads" / "5" / "a" / "linked", root=root)
    assert (secret / "keys.txt").read_text() == "keep me"
    # A link inside a tree: removed with the tree, its target untouched.
    (root / "uploads" / "5" / "a" / "inner").symlink_to(secret / "keys.txt")
    assert disk.remove(root / "uploads" / "5" / "a", root=root)
    assert (secret / "keys.txt").read_text() == "keep me" and not (root / "uploads" / "5" / "a").exists()
    # A link on the way to the path leads outside the root: refused, nothing removed.
    (root / "uploads" / "6").symlink_to(secret, target_is_directory=True)
    with pytest.raises(disk.OutsideRoot):
        disk.remove(root / "uploads" / "6" / "keys.txt", root=root)
    assert (secret / "keys.txt").read_text() == "keep me"


def test_a_root_reached_through_a_link_works_like_the_root(tmp_path, root):
    alias = tmp_path / "alias"
    alias.symlink_to(root, target_is_directory=True)
    assert disk.remove(alias / "uploads" / "5" / "a" / "posts.csv", root=alias)
    assert tree(root) == ["uploads", "uploads/5", "uploads/5/b", "uploads/5/b/other.csv"]


def test_a_stored_file_goes_with_the_directories_it_emptied(tmp_path):
    storage = FileSystemStorage(location=tmp_path / "media")
    name = storage.save("uploads/7/1f2e/posts.csv", ContentFile(b"text\n"))
    kept = storage.save("results/7/job/report.json", ContentFile(b"{}"))
    disk.remove_stored(storage, name)
    assert tree(tmp_path / "media") == ["results", "results/7", "results/7/job", "results/7/job/report.json"]
    disk.remove_stored(storage, "results/7/job")  # a directory named as the storage names files
    assert tree(tmp_path / "media") == [] and not storage.exists(kept)
