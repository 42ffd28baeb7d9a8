//! Small helpers over web-sys, and event listeners removed when dropped.

use crate::console::LogFailure;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Document, Element, EventTarget, HtmlElement, Window};

pub fn window() -> Result<Window, JsValue> {
    web_sys::window().ok_or_else(|| JsValue::from_str("no window"))
}

pub fn document() -> Result<Document, JsValue> {
    window()?
        .document()
        .ok_or_else(|| JsValue::from_str("no document"))
}

/// A new element with a class (empty for none).
pub fn el(doc: &Document, tag: &str, class: &str) -> Result<HtmlElement, JsValue> {
    // Made here, so its type is known: no check.
    let element: HtmlElement = doc.create_element(tag)?.unchecked_into();
    if !class.is_empty() {
        element.set_class_name(class);
    }
    Ok(element)
}

/// A new element appended to `parent`.
pub fn child(parent: &Element, tag: &str, class: &str) -> Result<HtmlElement, JsValue> {
    let doc = parent
        .owner_document()
        .ok_or_else(|| JsValue::from_str("detached"))?;
    let element = el(&doc, tag, class)?;
    parent.append_child(&element)?;
    Ok(element)
}

pub fn text_child(
    parent: &Element,
    tag: &str,
    class: &str,
    text: &str,
) -> Result<HtmlElement, JsValue> {
    let element = child(parent, tag, class)?;
    element.set_text_content(Some(text));
    Ok(element)
}

/// `template` with each `{}` replaced by the next of `slots` escaped as
/// text, and each `{!}` by the next as HTML; `None` when the slots do not
/// match the template. Static parts of the page are built this way, in one
/// `innerHTML`, instead of one call into the browser per element and
/// attribute.
pub fn fill(template: &str, slots: &[&str]) -> Option<String> {
    let mut html = String::with_capacity(template.len() * 2);
    let mut slots = slots.iter();
    let mut rest = template;
    while let Some((before, after)) = crate::text::split_once(rest, b'{') {
        html.push_str(before);
        let slot = slots.next()?;
        rest = match after.strip_prefix("!}") {
            Some(after) => {
                html.push_str(slot);
                after
            }
            None => {
                push_escaped(&mut html, slot);
                after.strip_prefix('}')?
            }
        };
    }
    html.push_str(rest);
    slots.next().is_none().then_some(html)
}

/// Appends `text` escaped, for an element's text or a quoted attribute.
pub fn push_escaped(html: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => html.push_str("&amp;"),
            '<' => html.push_str("&lt;"),
            '>' => html.push_str("&gt;"),
            '"' => html.push_str("&quot;"),
            '\'' => html.push_str("&#39;"),
            c => html.push(c),
        }
    }
}

/// [`fill`] for the page: a template that does not match its slots is an
/// error.
pub fn html(template: &str, slots: &[&str]) -> Result<String, JsValue> {
    fill(template, slots).ok_or_else(|| JsValue::from_str("a template and its texts differ"))
}

/// The element under `root` that `selector` names. The page's templates
/// are ours, so its type is not checked; a missing one is an error.
pub fn find(root: &Element, selector: &str) -> Result<HtmlElement, JsValue> {
    root.query_selector(selector)?
        .map(JsCast::unchecked_into)
        .ok_or_else(|| JsValue::from_str(selector))
}

/// Takes a template's elements under one root. The template is ours, so
/// no type is checked; a missing element is remembered for [`Lookup::finish`]
/// (an `undefined` stands in for it meanwhile, never used), so that a
/// struct of handles has one point of failure instead of one per handle
/// (each with its own clean-up code).
pub struct Lookup<'a> {
    root: &'a Element,
    missing: Option<String>,
}

impl<'a> Lookup<'a> {
    pub fn new(root: &'a Element) -> Lookup<'a> {
        Lookup {
            root,
            missing: None,
        }
    }

    pub fn get(&mut self, selector: &str) -> HtmlElement {
        match self.root.query_selector(selector) {
            Ok(Some(found)) if self.missing.is_none() => found.unchecked_into(),
            _ => self.miss(selector),
        }
    }

    /// The `count` elements right after the one `selector` names, in order
    /// (a template's repeated buttons).
    pub fn after(&mut self, selector: &str, count: usize) -> Vec<HtmlElement> {
        let mut found = Vec::with_capacity(count);
        let mut at = self.get(selector);
        while self.missing.is_none() && found.len() < count {
            match at.next_element_sibling() {
                Some(next) => {
                    at = next.unchecked_into();
                    found.push(at.clone());
                }
                None => {
                    self.miss(selector);
                }
            }
        }
        found
    }

    fn miss(&mut self, selector: &str) -> HtmlElement {
        self.missing.get_or_insert_with(|| selector.to_owned());
        JsValue::UNDEFINED.unchecked_into()
    }

    /// An error naming the first element missing, if any was.
    pub fn finish(self) -> Result<(), JsValue> {
        match self.missing {
            None => Ok(()),
            Some(selector) => Err(JsValue::from_str(&format!("no {selector} in the page"))),
        }
    }
}

/// Sets the text only when it changed, so screen readers and layout are not
/// disturbed by identical rewrites.
pub fn set_text(element: &Element, text: &str) {
    if element.text_content().as_deref() != Some(text) {
        element.set_text_content(Some(text));
    }
}

pub fn set_attr(element: &Element, name: &str, value: &str) {
    if element.get_attribute(name).as_deref() != Some(value) {
        element
            .set_attribute(name, value)
            .log_failure("setting an attribute");
    }
}

pub fn set_hidden(element: &HtmlElement, hidden: bool) {
    if element.hidden() != hidden {
        element.set_hidden(hidden);
    }
}

/// An event listener that is removed from its target when dropped, instead
/// of being leaked with `Closure::forget`.
pub struct Listener {
    target: EventTarget,
    kind: &'static str,
    closure: Closure<dyn FnMut(web_sys::Event)>,
}

impl Listener {
    pub fn new(
        target: &EventTarget,
        kind: &'static str,
        handler: impl FnMut(web_sys::Event) + 'static,
    ) -> Result<Listener, JsValue> {
        let closure = Closure::<dyn FnMut(web_sys::Event)>::new(handler);
        target.add_event_listener_with_callback(kind, closure.as_ref().unchecked_ref())?;
        Ok(Listener {
            target: target.clone(),
            kind,
            closure,
        })
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.target
            .remove_event_listener_with_callback(self.kind, self.closure.as_ref().unchecked_ref())
            .log_failure("removing an event listener");
    }
}

/// Local storage, or nothing when the browser refuses it (private mode,
/// sandboxed iframe): preferences are a comfort, never a requirement.
pub fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

pub fn load_pref(key: &str) -> Option<String> {
    storage()?.get_item(key).ok().flatten()
}

pub fn save_pref(key: &str, value: Option<&str>) {
    if let Some(storage) = storage() {
        // A full or refused storage only costs the comfort, but says so.
        match value {
            Some(value) => storage.set_item(key, value),
            None => storage.remove_item(key),
        }
        .log_failure("saving a preference");
    }
}

#[cfg(test)]
mod tests {
    use super::fill;

    #[test]
    fn texts_are_escaped_and_html_is_not() {
        assert_eq!(
            fill(
                "<p title='{}'>{}</p>{!}",
                &["l'or & <sel>", "\"a\"", "<b>x</b>"]
            )
            .as_deref(),
            Some("<p title='l&#39;or &amp; &lt;sel&gt;'>&quot;a&quot;</p><b>x</b>")
        );
        assert_eq!(fill("plain", &[]).as_deref(), Some("plain"));
    }

    #[test]
    fn slots_must_match_the_template() {
        assert_eq!(fill("<p>{}</p>", &[]), None);
        assert_eq!(fill("<p>{}</p>", &["a", "b"]), None);
        assert_eq!(fill("<p>{x}</p>", &["a"]), None);
    }
}
