"use client";
// A wide table's sideways scrolling: whether more columns lie to the right (the hint and the
// edge's shade say so until the last column is in view), whether it is scrolled at all (the
// pinned columns then cast a shadow), and where each pinned column starts, measured from the
// header, since a sticky cell's `left` is the widths of the pinned cells before it.
import { type RefObject, useCallback, useLayoutEffect, useState } from "react";

export interface SideScroll {
  /** Columns lie past the right edge. */
  more: boolean;
  /** Scrolled away from the first column. */
  scrolled: boolean;
  /** The left offset (px) of each pinned header cell, in order. */
  lefts: number[];
  /** Scrolls most of a screen's width further right. */
  scrollOn: () => void;
}

export function useSideScroll(box: RefObject<HTMLDivElement | null>, pinnedCells: number): SideScroll {
  const [state, setState] = useState({ more: false, scrolled: false, lefts: [] as number[] });
  const measure = useCallback(() => {
    const el = box.current;
    if (!el) return;
    const cells = [...(el.querySelector("thead tr")?.children ?? [])].slice(0, pinnedCells) as HTMLElement[];
    const lefts: number[] = [];
    let left = 0;
    for (const cell of cells) {
      lefts.push(left);
      left += cell.getBoundingClientRect().width;
    }
    const next = { more: el.scrollLeft + el.clientWidth < el.scrollWidth - 1, scrolled: el.scrollLeft > 0, lefts };
    // A new object only when something moved, so scrolling does not re-render the table on every pixel.
    setState((now) => (now.more === next.more && now.scrolled === next.scrolled && now.lefts.join() === next.lefts.join() ? now : next));
  }, [box, pinnedCells]);

  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    measure();
    el.addEventListener("scroll", measure, { passive: true });
    const resized = new ResizeObserver(measure);
    resized.observe(el);
    const table = el.querySelector("table");
    if (table) resized.observe(table);
    return () => {
      el.removeEventListener("scroll", measure);
      resized.disconnect();
    };
  }, [box, measure]);

  const scrollOn = useCallback(() => box.current?.scrollBy({ left: box.current.clientWidth * 0.8, behavior: "smooth" }), [box]);
  return { ...state, scrollOn };
}
