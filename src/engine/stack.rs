//! A vector with a fixed capacity and no heap: it keeps a game `Copy`, so that a
//! search can copy positions as cheaply as it copies numbers.

use std::ops::{Deref, DerefMut};

/// Up to `N` items of `T`, in order. The places past the end hold `T::default()`
/// or items popped off, which no method shows.
#[derive(Debug, Clone, Copy)]
pub struct Stack<T: Copy + Default, const N: usize> {
    items: [T; N],
    len: u8,
}

impl<T: Copy + Default + PartialEq, const N: usize> PartialEq for Stack<T, N> {
    fn eq(&self, other: &Self) -> bool {
        self[..] == other[..]
    }
}

impl<T: Copy + Default + Eq, const N: usize> Eq for Stack<T, N> {}

impl<T: Copy + Default, const N: usize> Default for Stack<T, N> {
    fn default() -> Self {
        Stack { items: [T::default(); N], len: 0 }
    }
}

impl<T: Copy + Default, const N: usize> Stack<T, N> {
    /// Adds `item` at the end.
    ///
    /// # Panics
    /// When the stack is full: the rules bound every stack of a game.
    pub fn push(&mut self, item: T) {
        assert!(usize::from(self.len) < N, "a stack of {N} is full");
        self.items[usize::from(self.len)] = item;
        self.len += 1;
    }

    /// Takes the last item off, if there is one.
    pub fn pop(&mut self) -> Option<T> {
        self.len = self.len.checked_sub(1)?;
        Some(self.items[usize::from(self.len)])
    }
}

impl<T: Copy + Default, const N: usize> Deref for Stack<T, N> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        &self.items[..usize::from(self.len)]
    }
}

impl<T: Copy + Default, const N: usize> DerefMut for Stack<T, N> {
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.items[..usize::from(self.len)]
    }
}

impl<T: Copy + Default, const N: usize> IntoIterator for Stack<T, N> {
    type Item = T;
    type IntoIter = std::iter::Take<std::array::IntoIter<T, N>>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter().take(usize::from(self.len))
    }
}

impl<'a, T: Copy + Default, const N: usize> IntoIterator for &'a Stack<T, N> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T: Copy + Default, const N: usize> FromIterator<T> for Stack<T, N> {
    fn from_iter<I: IntoIterator<Item = T>>(items: I) -> Self {
        let mut stack = Stack::default();
        items.into_iter().for_each(|item| stack.push(item));
        stack
    }
}

#[cfg(test)]
mod tests {
    use super::Stack;

    #[test]
    fn a_stack_keeps_its_items_in_order() {
        let mut stack: Stack<u8, 3> = Stack::default();
        assert!(stack.is_empty());
        stack.push(7);
        stack.push(9);
        assert_eq!(&stack[..], &[7, 9]);
        stack[0] = 1;
        assert_eq!(stack.into_iter().collect::<Vec<_>>(), vec![1, 9]);
        assert_eq!((0..3).collect::<Stack<u8, 3>>().len(), 3);
        assert_eq!(stack.pop(), Some(9));
        assert_eq!(stack.pop(), Some(1));
        assert_eq!(stack.pop(), None);
        assert_eq!(stack, Stack::default());
    }

    #[test]
    #[should_panic(expected = "a stack of 2 is full")]
    fn a_full_stack_refuses_more() {
        let mut stack: Stack<u8, 2> = (0..2).collect();
        stack.push(2);
    }
}
