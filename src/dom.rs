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
    let element: HtmlElement = doc.create_element(tag)?.dyn_into()?;
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
